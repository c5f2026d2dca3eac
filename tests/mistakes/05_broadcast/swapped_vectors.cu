// expect: fail
// kind: out-of-bounds
// line: @bug
// why: a[col] + b[row]: a is the column vector (rows values), indexed by the column, which runs past its end when there are more columns than rows.
// help-has: a[row]
// help-not: guard both
// Puzzle 5 · Broadcast: out[r][c] = a[r] + b[c] (a is a column, b a row).
extern "C" __global__ void broadcast(float* out, const float* a, const float* b, int rows, int cols) {
    int col = threadIdx.x;
    int row = threadIdx.y;
    if (row < rows && col < cols) {
        out[row * cols + col] = a[col] + b[row];  // @bug
    }
}
