// expect: pass
// why: early return, and the flat index computed once.
// Puzzle 4 · Map 2D: out[r][c] = a[r][c] + 10 for a rows x cols matrix stored row by row.
extern "C" __global__ void map_2d(float* out, const float* a, int rows, int cols) {
    int col = threadIdx.x;
    int row = threadIdx.y;
    if (row >= rows || col >= cols) return;
    int idx = row * cols + col;
    out[idx] = a[idx] + 10.0f;
}
