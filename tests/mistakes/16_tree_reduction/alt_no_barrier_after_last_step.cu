// expect: pass
// why: skips the barrier after the last step: only thread 0 reads s[0] then, and it wrote s[0] itself.
// Puzzle 16 · Tree reduction: out[blockIdx.x] = sum of this block's 2 * TPB elements of a.
extern "C" __global__ void tree_reduction(float* out, const float* a, int size) {
    __shared__ float s[TPB];
    int t = threadIdx.x;
    int base = blockIdx.x * 2 * TPB;
    int first = base + t;
    int second = base + t + TPB;
    float v = first < size ? a[first] : 0.0f;
    if (second < size) {
        v += a[second];
    }
    s[t] = v;
    __syncthreads();
    for (int stride = TPB / 2; stride > 0; stride /= 2) {
        if (t < stride) {
            s[t] += s[t + stride];
        }
        if (stride > 1) {  // the last step's sum is read by the thread that wrote it
            __syncthreads();
        }
    }
    if (t == 0) {
        out[blockIdx.x] = s[0];
    }
}
