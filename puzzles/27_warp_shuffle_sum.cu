// Puzzle 27 · Warp shuffle sum: out[w] = sum of the 32 elements handled by warp w.
// Check with `gpuzzle run 27`; stuck? `gpuzzle hint 27`.
extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    // FILL ME IN (roughly 8 lines). Start from these, uncommented:
    //   int i = blockIdx.x * blockDim.x + threadIdx.x;
    //   int lane = threadIdx.x % 32;  // this thread's place in its warp
}
