// Puzzle 5 · Broadcast: out[r][c] = a[r] + b[c] (a is a column, b a row).
// Check with `gpuzzle run 5`; stuck? `gpuzzle hint 5`.
extern "C" __global__ void broadcast(float* out, const float* a, const float* b, int size) {
    int col = threadIdx.x;
    int row = threadIdx.y;
    // FILL ME IN (roughly 2 lines)
}
