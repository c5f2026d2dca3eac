// expect: fail
// kind: global-race
// line: @bug
// help-has: blockIdx
// help-not: atomicAdd
// help-not: __threadfence
// why: forgets the block offset: all four blocks write the top-left 3 x 3 corner.
// Puzzle 7 · Blocks 2D: out[r][c] = a[r][c] + 10, the matrix tiled by 2D blocks.
extern "C" __global__ void blocks_2d(float* out, const float* a, int rows, int cols) {
    int col = threadIdx.x;
    int row = threadIdx.y;
    if (row < rows && col < cols) {
        out[row * cols + col] = a[row * cols + col] + 10.0f;  // @bug
    }
}
