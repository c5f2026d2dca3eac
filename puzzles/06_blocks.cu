// Puzzle 6 · Blocks: out[i] = a[i] + 10, with several blocks.
// Check with `gpuzzle run 6`; stuck? `gpuzzle hint 6`.
extern "C" __global__ void blocks(float* out, const float* a, int size) {
    // FILL ME IN (roughly 3 lines), starting from this thread's global index:
    // int i = blockIdx.x * blockDim.x + threadIdx.x;
}
