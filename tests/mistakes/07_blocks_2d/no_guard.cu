// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: col < cols
// help-not: atomicAdd
// why: 6 x 6 threads for 5 x 5 elements, no guard: column 5 wraps into the next row.
// Puzzle 7 · Blocks 2D: out[r][c] = a[r][c] + 10, the matrix tiled by 2D blocks.
extern "C" __global__ void blocks_2d(float* out, const float* a, int rows, int cols) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    out[row * cols + col] = a[row * cols + col] + 10.0f;  // @bug
}
