// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: col < size
// help-not: atomicAdd
// why: || lets a thread through when only one of its coordinates is inside.
// Puzzle 4 · Map 2D: out[r][c] = a[r][c] + 10 for a size x size matrix stored row by row.
extern "C" __global__ void map_2d(float* out, const float* a, int size) {
    int col = threadIdx.x;
    int row = threadIdx.y;
    if (row < size || col < size) {
        out[row * size + col] = a[row * size + col] + 10.0f;  // @bug
    }
}
