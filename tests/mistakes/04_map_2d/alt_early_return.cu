// expect: pass
// why: early return, and the flat index computed once.
// Puzzle 4 · Map 2D: out[r][c] = a[r][c] + 10 for a size x size matrix stored row by row.
extern "C" __global__ void map_2d(float* out, const float* a, int size) {
    int col = threadIdx.x;
    int row = threadIdx.y;
    if (row >= size || col >= size) return;
    int idx = row * size + col;
    out[idx] = a[idx] + 10.0f;
}
