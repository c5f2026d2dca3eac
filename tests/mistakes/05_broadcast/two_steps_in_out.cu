// expect: fail
// kind: over-budget
// counter: global_writes
// why: writes a[row] first and adds b[col] in place: 2 writes, 3 reads.
// Puzzle 5 · Broadcast: out[r][c] = a[r] + b[c] (a is a column, b a row).
extern "C" __global__ void broadcast(float* out, const float* a, const float* b, int size) {
    int col = threadIdx.x;
    int row = threadIdx.y;
    if (row < size && col < size) {
        out[row * size + col] = a[row];
        out[row * size + col] += b[col];
    }
}
