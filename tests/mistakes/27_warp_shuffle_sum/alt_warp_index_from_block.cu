// expect: pass
// why: xor butterfly, so every lane holds the sum; lane 0 writes it at the warp's index in the grid.
// Puzzle 27 · Warp shuffle sum: out[w] = sum of the 32 elements handled by warp w.
// Check with `gpuzzle run 27`; stuck? `gpuzzle hint 27`.
extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int warp_in_grid = (blockIdx.x * blockDim.x) / 32 + threadIdx.x / 32;
    float s = g < size ? a[g] : 0.0f;
    for (int m = 1; m < 32; m *= 2) {
        s += __shfl_xor_sync(0xffffffff, s, m);
    }
    if ((threadIdx.x & 31) == 0 && g < size) {
        out[warp_in_grid] = s;
    }
}
