// Puzzle 5 · Broadcast: out[r][c] = a[r] + b[c] (a is a column, b a row).
// Check with `gpuzzle run 5`; stuck? `gpuzzle hint 5`.
extern "C" __global__ void broadcast(float* out, const float* a, const float* b, int rows, int cols) {
    // FILL ME IN (roughly 4 lines), starting from this thread's coordinates:
    // int col = threadIdx.x;
    // int row = threadIdx.y;
}
