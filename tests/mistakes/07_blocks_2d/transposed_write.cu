// expect: fail
// kind: out-of-bounds
// line: @bug
// why: writes out[c][r] with the row length as the stride: element (r, c) is at r * cols + c, so
// why: on a wide matrix the transposed index runs past the end of out.
// help-has: r * cols + c
// help-not: guard both
// help-not: if (c < rows
// Puzzle 7 · Blocks 2D: out[r][c] = a[r][c] + 10, the matrix tiled by 2D blocks.
// Check with `gpuzzle run 7`; stuck? `gpuzzle hint 7`.
extern "C" __global__ void blocks_2d(float* out, const float* a, int rows, int cols) {
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows && c < cols) {
        float v = a[r * cols + c] + 10.0f;
        out[c * cols + r] = v;  // @bug
    }
}
