// Puzzle 23 · Column sum: out[c] = sum of column c of a (rows x cols, rows <= TPB).
// Check with `gpuzzle run 23`; stuck? `gpuzzle hint 23`.
extern "C" __global__ void column_sum(float* out, const float* a, int rows, int cols) {
    // FILL ME IN (roughly 14 lines). Start from these, uncommented:
    //   __shared__ float cache[TPB];
    //   int col = blockIdx.x;       // this block's column
    //   int local_i = threadIdx.x;  // this thread's row
}
