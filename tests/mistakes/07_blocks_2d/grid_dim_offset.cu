// expect: fail
// kind: global-race
// line: @bug
// help-has: blockDim
// help-not: atomicAdd
// why: multiplies the block index by gridDim instead of blockDim.
// Puzzle 7 · Blocks 2D: out[r][c] = a[r][c] + 10, the matrix tiled by 2D blocks.
extern "C" __global__ void blocks_2d(float* out, const float* a, int rows, int cols) {
    int col = blockIdx.x * gridDim.x + threadIdx.x;
    int row = blockIdx.y * gridDim.y + threadIdx.y;
    if (row <= rows && col <= cols) {
        out[row * cols + col] = a[row * cols + col] + 10.0f;  // @bug
    }
}
