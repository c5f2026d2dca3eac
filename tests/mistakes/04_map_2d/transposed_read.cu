// expect: fail
// kind: wrong-output
// why: reads a[col][row]: the output is the transpose plus 10.
// Puzzle 4 · Map 2D: out[r][c] = a[r][c] + 10 for a size x size matrix stored row by row.
extern "C" __global__ void map_2d(float* out, const float* a, int size) {
    int col = threadIdx.x;
    int row = threadIdx.y;
    if (row < size && col < size) {
        out[row * size + col] = a[col * size + row] + 10.0f;
    }
}
