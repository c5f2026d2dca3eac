// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: row < size && col < size | col < size
// help-not: atomicAdd
// why: no guard at all: 9 threads for 4 elements.
// Puzzle 4 · Map 2D: out[r][c] = a[r][c] + 10 for a size x size matrix stored row by row.
extern "C" __global__ void map_2d(float* out, const float* a, int size) {
    int col = threadIdx.x;
    int row = threadIdx.y;
    out[row * size + col] = a[row * size + col] + 10.0f;  // @bug
}
