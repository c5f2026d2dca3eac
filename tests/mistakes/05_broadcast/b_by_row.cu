// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: b[c]
// help-not: compare it with cols
// why: indexes the row vector b with the row instead of the column.
// Puzzle 5 · Broadcast: out[r][c] = a[r] + b[c] (a is a column, b a row).
// Check with `gpuzzle run 5`; stuck? `gpuzzle hint 5`.
extern "C" __global__ void broadcast(float* out, const float* a, const float* b, int rows, int cols) {
    int c = threadIdx.x;
    int r = threadIdx.y;
    if (r < rows && c < cols) {
        out[r * cols + c] = a[r] + b[r];  // @bug
    }
}
