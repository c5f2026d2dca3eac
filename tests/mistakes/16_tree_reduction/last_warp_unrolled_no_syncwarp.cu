// expect: fail
// kind: shared-race
// line: @race
// help-has: __syncwarp()
// help-not: v; __syncthreads()
// why: the last warp's steps are unrolled inside `if (t < 32)` with no __syncwarp() between them (no volatile either).
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
    if (t < 32) {
        s[t] += s[t + 32];
        s[t] += s[t + 16];
        s[t] += s[t + 8];
        s[t] += s[t + 4];
        s[t] += s[t + 2];
        s[t] += s[t + 1];  // @race
    }
    if (t == 0) {
        out[blockIdx.x] = s[0];
    }
}
