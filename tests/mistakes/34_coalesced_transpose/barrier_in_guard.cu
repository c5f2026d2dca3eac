// expect: fail
// kind: barrier-divergence
// line: @bug
// help-has: outside | out of the if
// help-not: atomicAdd
// why: the barrier inside the load's guard: threads past the edge skip it.
// Puzzle 34 · Coalesced transpose: out[c * rows + r] = a[r * cols + c], with both the global
// read and the global write coalesced. Check with `gpuzzle run 34`; stuck? `gpuzzle hint 34`.
extern "C" __global__ void transpose(float* out, const float* a, int rows, int cols) {
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    __shared__ float tile[TILE][TILE];
    if (row < rows && col < cols) {
        tile[threadIdx.y][threadIdx.x] = a[row * cols + col];
        __syncthreads();  // @bug
    }
    int out_row = blockIdx.x * TILE + threadIdx.y;
    int out_col = blockIdx.y * TILE + threadIdx.x;
    if (out_row < cols && out_col < rows) {
        out[out_row * rows + out_col] = tile[threadIdx.x][threadIdx.y];
    }
}
