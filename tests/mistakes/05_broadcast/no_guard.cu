// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: row < rows
// help-not: atomicAdd
// why: 3 x 3 threads, 2 x 2 outputs, no guard.
// Puzzle 5 · Broadcast: out[r][c] = a[r] + b[c] (a is a column, b a row).
extern "C" __global__ void broadcast(float* out, const float* a, const float* b, int rows, int cols) {
    int col = threadIdx.x;
    int row = threadIdx.y;
    out[row * cols + col] = a[row] + b[col];  // @bug
}
