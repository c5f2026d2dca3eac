// Puzzle 17 · 2D reduction: out[blockIdx.y * gridDim.x + blockIdx.x] = sum of this block's tile of a.
// Check with `gpuzzle run 17`; stuck? `gpuzzle hint 17`.
extern "C" __global__ void reduce_2d(float* out, const float* a, int rows, int cols) {
    // FILL ME IN (roughly 16 lines). You will need:
    //   __shared__ float s[TPB_Y * TPB_X];
    //   int row = blockIdx.y * blockDim.y + threadIdx.y;
    //   int col = blockIdx.x * blockDim.x + threadIdx.x;
}
