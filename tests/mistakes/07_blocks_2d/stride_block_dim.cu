// expect: fail
// kind: global-race
// line: @bug
// help-has: row * cols
// help-not: atomicAdd
// why: the row stride is blockDim.x (3) instead of the matrix width (5).
// Puzzle 7 · Blocks 2D: out[r][c] = a[r][c] + 10, the matrix tiled by 2D blocks.
extern "C" __global__ void blocks_2d(float* out, const float* a, int rows, int cols) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < rows && col < cols) {
        out[row * blockDim.x + col] = a[row * blockDim.x + col] + 10.0f;  // @bug
    }
}
