// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: TPB / 2
// help-not: if (i < size)
// why: starts the tree at stride TPB, as if s held 2 * TPB values.
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
    for (int stride = TPB; stride > 0; stride /= 2) {
        if (t < stride) {
            s[t] += s[t + stride];  // @bug
        }
        __syncthreads();
    }
    if (t == 0) {
        out[blockIdx.x] = s[0];
    }
}
