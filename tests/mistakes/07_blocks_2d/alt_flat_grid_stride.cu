// expect: pass
// why: 2D grid-stride loops in both directions.
// Puzzle 7 · Blocks 2D: out[r][c] = a[r][c] + 10, the matrix tiled by 2D blocks.
extern "C" __global__ void blocks_2d(float* out, const float* a, int rows, int cols) {
    for (int row = blockIdx.y * blockDim.y + threadIdx.y; row < rows; row += blockDim.y * gridDim.y) {
        for (int col = blockIdx.x * blockDim.x + threadIdx.x; col < cols; col += blockDim.x * gridDim.x) {
            out[row * cols + col] = a[row * cols + col] + 10.0f;
        }
    }
}
