// Puzzle 4 · Map 2D: out[r][c] = a[r][c] + 10 for a rows x cols matrix stored row by row.
// Check with `gpuzzle run 4`; stuck? `gpuzzle hint 4`.
extern "C" __global__ void map_2d(float* out, const float* a, int rows, int cols) {
    // FILL ME IN (roughly 4 lines), starting from this thread's coordinates:
    // int col = threadIdx.x;
    // int row = threadIdx.y;
}
