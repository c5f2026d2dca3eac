// expect: fail
// kind: barrier-divergence
// line: @bug
// help-has: outside | out of the if
// help-not: atomicAdd
// why: the trap the puzzle warns about: the barrier inside `if (t < stride)`.
// Puzzle 16 · Tree reduction: out[blockIdx.x] = sum of this block's 2 * TPB elements of a.
extern "C" __global__ void tree_reduction(float* out, const float* a, int size) {
    __shared__ float s[TPB];
    int t = threadIdx.x;
    int base = blockIdx.x * 2 * TPB;
    float v = base + t < size ? a[base + t] : 0.0f;
    if (base + t + TPB < size) {
        v += a[base + t + TPB];
    }
    s[t] = v;
    __syncthreads();
    for (int stride = TPB / 2; stride > 0; stride /= 2) {
        if (t < stride) {
            s[t] += s[t + stride];
            __syncthreads();  // @bug
        }
    }
    if (t == 0) {
        out[blockIdx.x] = s[0];
    }
}
