// expect: pass
// why: loads the two vector values into registers inside the guard.
// Puzzle 5 · Broadcast: out[r][c] = a[r] + b[c] (a is a column, b a row).
extern "C" __global__ void broadcast(float* out, const float* a, const float* b, int rows, int cols) {
    int col = threadIdx.x;
    int row = threadIdx.y;
    if (col < cols) {
        if (row < rows) {
            float x = a[row];
            float y = b[col];
            out[row * cols + col] = x + y;
        }
    }
}
