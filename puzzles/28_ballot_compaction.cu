// Puzzle 28 · Ballot compaction: pack each warp's positive elements to the front of its slice.
// Check with `gpuzzle run 28`; stuck? `gpuzzle hint 28`.
extern "C" __global__ void compact(float* out, int* counts, const float* a, int size) {
    // FILL ME IN (roughly 10 lines). Start from these, uncommented:
    //   int i = blockIdx.x * blockDim.x + threadIdx.x;
    //   int lane = threadIdx.x;  // a block is one warp: the thread's lane
}
