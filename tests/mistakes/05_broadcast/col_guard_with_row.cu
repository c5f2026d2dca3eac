// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: col < cols
// help-not: atomicAdd
// why: copy-paste: checks row twice, never col.
// Puzzle 5 · Broadcast: out[r][c] = a[r] + b[c] (a is a column, b a row).
extern "C" __global__ void broadcast(float* out, const float* a, const float* b, int rows, int cols) {
    int col = threadIdx.x;
    int row = threadIdx.y;
    if (row < rows && row < rows) {
        out[row * cols + col] = a[row] + b[col];  // @bug
    }
}
