// expect: fail
// kind: step-limit
// line: @bug
// help-has: >>=
// help-not: s * 2
// why: `stride >> 1` computes the next stride and drops it.
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
    for (int stride = TPB / 2; stride > 0; stride >> 1) {  // @bug
        if (t < stride) {
            s[t] += s[t + stride];
        }
        __syncthreads();
    }
    if (t == 0) {
        out[blockIdx.x] = s[0];
    }
}
