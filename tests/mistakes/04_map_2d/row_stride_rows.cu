// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: r * cols | row length | cols
// help-not: r < rows &&
// why: the read's row-major index uses the number of rows as the row length (r * rows + c): on a
// why: 3 x 5 matrix it reads the wrong cells, on a tall 6 x 2 one it reads past the end of a.
// Puzzle 4 · Map 2D: out[r][c] = a[r][c] + 10 for a rows x cols matrix stored row by row.
extern "C" __global__ void map_2d(float* out, const float* a, int rows, int cols) {
    int c = threadIdx.x;
    int r = threadIdx.y;
    if (r < rows && c < cols) {
        float v = a[r * rows + c];  // @bug
        out[r * cols + c] = v + 10.0f;
    }
}
