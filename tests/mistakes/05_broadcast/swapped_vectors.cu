// expect: fail
// kind: wrong-output
// why: a[col] + b[row]: a is the column vector, indexed by the row.
// Puzzle 5 · Broadcast: out[r][c] = a[r] + b[c] (a is a column, b a row).
extern "C" __global__ void broadcast(float* out, const float* a, const float* b, int size) {
    int col = threadIdx.x;
    int row = threadIdx.y;
    if (row < size && col < size) {
        out[row * size + col] = a[col] + b[row];
    }
}
