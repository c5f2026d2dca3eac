// Puzzle 27 · Warp shuffle sum: out[w] = sum of the 32 elements handled by warp w.
// Check with `gpuzzle run 27`; stuck? `gpuzzle hint 27`.
extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    // FILL ME IN (roughly 6 lines)
}
