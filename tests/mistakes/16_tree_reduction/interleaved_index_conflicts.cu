// expect: fail
// kind: over-budget
// counter: bank_ways
// help-has: s[t + stride] | sequential | t < stride
// why: the interleaved tree `k = 2 * stride * t` adds the right values but its active threads
// why: hit the same banks; the fix is the sequential tree `if (t < stride) s[t] += s[t + stride]`
// why: with the stride halving from TPB / 2.
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
    for (int stride = 1; stride < TPB; stride *= 2) {
        int k = 2 * stride * t;
        if (k < TPB) {
            s[k] += s[k + stride];  // @bug
        }
        __syncthreads();
    }
    if (t == 0) {
        out[blockIdx.x] = s[0];
    }
}
