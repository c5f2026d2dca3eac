// expect: fail
// kind: out-of-bounds
// line: @bug
// why: reads a[col][row] with the row stride: the transpose, which runs past the end of a on a non-square matrix.
// help-has: row * cols + col | a[row][col]
// help-not: guard both
// Puzzle 4 · Map 2D: out[r][c] = a[r][c] + 10 for a rows x cols matrix stored row by row.
extern "C" __global__ void map_2d(float* out, const float* a, int rows, int cols) {
    int col = threadIdx.x;
    int row = threadIdx.y;
    if (row < rows && col < cols) {
        out[row * cols + col] = a[col * cols + row] + 10.0f;  // @bug
    }
}
