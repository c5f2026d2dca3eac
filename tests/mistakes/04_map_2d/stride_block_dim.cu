// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: row * size
// help-not: if (i < size)
// why: the row stride is the width of the block, not of the matrix.
// Puzzle 4 · Map 2D: out[r][c] = a[r][c] + 10 for a size x size matrix stored row by row.
extern "C" __global__ void map_2d(float* out, const float* a, int size) {
    int col = threadIdx.x;
    int row = threadIdx.y;
    if (row < size && col < size) {
        out[row * blockDim.x + col] = a[row * blockDim.x + col] + 10.0f;  // @bug
    }
}
