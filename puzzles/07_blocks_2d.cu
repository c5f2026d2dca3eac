// Puzzle 7 · Blocks 2D: out[r][c] = a[r][c] + 10, the matrix tiled by 2D blocks.
// Check with `gpuzzle run 7`; stuck? `gpuzzle hint 7`.
extern "C" __global__ void blocks_2d(float* out, const float* a, int rows, int cols) {
    // FILL ME IN (roughly 4 lines)
}
