// Puzzle 12 · Block sum: out[blockIdx.x] = sum of this block's TPB elements of a.
// Check with `gpuzzle run 12`; stuck? `gpuzzle hint 12`.
extern "C" __global__ void block_sum(float* out, const float* a, int size) {
    // FILL ME IN (roughly 15 lines). You will need:
    //   __shared__ float cache[TPB];
    //   int i = blockIdx.x * blockDim.x + threadIdx.x;
    //   int local_i = threadIdx.x;
}
