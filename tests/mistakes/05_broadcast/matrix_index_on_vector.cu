// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: a[row]
// help-not: if (i < size)
// why: indexes the column vector as if it were the matrix.
// Puzzle 5 · Broadcast: out[r][c] = a[r] + b[c] (a is a column, b a row).
extern "C" __global__ void broadcast(float* out, const float* a, const float* b, int rows, int cols) {
    int col = threadIdx.x;
    int row = threadIdx.y;
    if (row < rows && col < cols) {
        out[row * cols + col] = a[row * cols + col] + b[col];  // @bug
    }
}
