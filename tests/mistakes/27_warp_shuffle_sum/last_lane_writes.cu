// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: g < size | lane 0
// help-not: __syncthreads()
// why: folds with __shfl_down_sync, which gathers the sum in lane 0, but lets lane 31 write it.
// Puzzle 27 · Warp shuffle sum: out[w] = sum of the 32 elements handled by warp w.
// Check with `gpuzzle run 27`; stuck? `gpuzzle hint 27`.
extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int ln = threadIdx.x & 31;
    float acc = g < size ? a[g] : 0.0f;
    for (int d = 16; d >= 1; d >>= 1) {
        acc += __shfl_down_sync(0xffffffff, acc, d);
    }
    if (ln == 31) {
        out[g / 32] = acc;  // @bug
    }
}
