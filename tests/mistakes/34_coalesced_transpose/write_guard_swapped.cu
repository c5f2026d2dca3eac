// expect: fail
// kind: global-race
// line: @bug
// help-has: out_row < cols | out_col < rows
// help-not: __syncthreads()
// why: guards the write with the bounds of a (rows, cols) instead of those of out (cols, rows).
// Puzzle 34 · Coalesced transpose: out[c * rows + r] = a[r * cols + c], with both the global
// read and the global write coalesced. Check with `gpuzzle run 34`; stuck? `gpuzzle hint 34`.
extern "C" __global__ void transpose(float* out, const float* a, int rows, int cols) {
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    __shared__ float tile[TILE][TILE];
    if (row < rows && col < cols) {
        tile[threadIdx.y][threadIdx.x] = a[row * cols + col];
    }
    __syncthreads();
    int out_row = blockIdx.x * TILE + threadIdx.y;
    int out_col = blockIdx.y * TILE + threadIdx.x;
    if (out_row < rows && out_col < cols) {
        out[out_row * rows + out_col] = tile[threadIdx.x][threadIdx.y];  // @bug
    }
}
