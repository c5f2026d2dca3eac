// expect: fail
// kind: over-budget
// counter: bank_ways
// help-has: [TILE][TILE + 1]
// why: the learner padded the wrong dimension: tile[TILE + 1][TILE] adds a row, and a column of
// why: the tile still sits in one bank. The pad goes on the row length: tile[TILE][TILE + 1].
// Puzzle 35 · Bank-conflict-free transpose: out[c * rows + r] = a[r * cols + c] through a shared
extern "C" __global__ void transpose(float* out, const float* a, int rows, int cols) {
    __shared__ float buf[TILE + 1][TILE];  // @bug
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    if (row < rows && col < cols) {
        buf[threadIdx.y][threadIdx.x] = a[row * cols + col];
    }
    __syncthreads();
    int orow = blockIdx.x * TILE + threadIdx.y;
    int ocol = blockIdx.y * TILE + threadIdx.x;
    if (orow < cols && ocol < rows) {
        out[orow * rows + ocol] = buf[threadIdx.x][threadIdx.y];
    }
}
