// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: col < size
// help-not: atomicAdd
// why: copy-paste: checks row twice, never col.
// Puzzle 5 · Broadcast: out[r][c] = a[r] + b[c] (a is a column, b a row).
extern "C" __global__ void broadcast(float* out, const float* a, const float* b, int size) {
    int col = threadIdx.x;
    int row = threadIdx.y;
    if (row < size && row < size) {
        out[row * size + col] = a[row] + b[col];  // @bug
    }
}
