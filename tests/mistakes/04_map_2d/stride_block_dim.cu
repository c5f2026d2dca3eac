// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: row * cols
// help-not: if (i < size)
// why: the row stride is the width of the block, not of the matrix.
// Puzzle 4 · Map 2D: out[r][c] = a[r][c] + 10 for a rows x cols matrix stored row by row.
extern "C" __global__ void map_2d(float* out, const float* a, int rows, int cols) {
    int col = threadIdx.x;
    int row = threadIdx.y;
    if (row < rows && col < cols) {
        out[row * blockDim.x + col] = a[row * blockDim.x + col] + 10.0f;  // @bug
    }
}
