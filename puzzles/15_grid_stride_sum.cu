// Puzzle 15 · Grid-stride sum: out[blockIdx.x] = this block's share of the sum of a.
// Check with `gpuzzle run 15`; stuck? `gpuzzle hint 15`.
extern "C" __global__ void grid_stride_sum(float* out, const float* a, int size) {
    // FILL ME IN (roughly 15 lines). You will need:
    //   __shared__ float cache[TPB];
    //   int gid = blockIdx.x * blockDim.x + threadIdx.x;
    //   int stride = blockDim.x * gridDim.x;
}
