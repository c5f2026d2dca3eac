// expect: fail
// kind: over-budget
// counter: bank_ways
// why: puzzle 34's kernel with the starter's [TILE][TILE] tile: 32-way conflicts on the column read.
// help-has: + 1 | pad
// help-not: guard the access
// Puzzle 35 · Bank-conflict-free transpose: out[c * rows + r] = a[r * cols + c] through a shared
// tile, with no bank conflicts. Check with `gpuzzle run 35`; stuck? `gpuzzle hint 35`.
extern "C" __global__ void transpose(float* out, const float* a, int rows, int cols) {
    __shared__ float tile[TILE][TILE];
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    if (row < rows && col < cols) {
        tile[threadIdx.y][threadIdx.x] = a[row * cols + col];
    }
    __syncthreads();
    int out_row = blockIdx.x * TILE + threadIdx.y;
    int out_col = blockIdx.y * TILE + threadIdx.x;
    if (out_row < cols && out_col < rows) {
        out[out_row * rows + out_col] = tile[threadIdx.x][threadIdx.y];
    }
}
