// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: row < rows && col < cols | col < cols
// help-not: atomicAdd
// why: no guard at all: 9 threads for 4 elements.
// Puzzle 4 · Map 2D: out[r][c] = a[r][c] + 10 for a rows x cols matrix stored row by row.
extern "C" __global__ void map_2d(float* out, const float* a, int rows, int cols) {
    int col = threadIdx.x;
    int row = threadIdx.y;
    out[row * cols + col] = a[row * cols + col] + 10.0f;  // @bug
}
