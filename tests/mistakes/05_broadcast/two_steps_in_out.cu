// expect: fail
// kind: over-budget
// counter: global_writes
// why: writes a[row] first and adds b[col] in place: 2 writes, 3 reads.
// help-has: register | once | one write
// help-not: guard the access
// Puzzle 5 · Broadcast: out[r][c] = a[r] + b[c] (a is a column, b a row).
extern "C" __global__ void broadcast(float* out, const float* a, const float* b, int rows, int cols) {
    int col = threadIdx.x;
    int row = threadIdx.y;
    if (row < rows && col < cols) {
        out[row * cols + col] = a[row];
        out[row * cols + col] += b[col];
    }
}
