// Puzzle 23 · Column sum: out[c] = sum of column c of a (rows x cols, rows <= TPB).
// Check with `gpuzzle run 23`; stuck? `gpuzzle hint 23`.
extern "C" __global__ void column_sum(float* out, const float* a, int rows, int cols) {
    __shared__ float cache[TPB];
    int col = blockIdx.x;
    int local_i = threadIdx.x;
    // FILL ME IN (roughly 12 lines)
}
