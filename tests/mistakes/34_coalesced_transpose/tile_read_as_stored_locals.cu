// expect: fail
// kind: uninitialized-read
// line: @bug
// help-has: tile[tx][ty]
// help-not: 0.0f
// help-not: __syncthreads()
// why: moves the block to its transposed place but reads tile[ty][tx], its own element, which the
// why: edge threads never stored.
// Puzzle 34 · Coalesced transpose: out[c * rows + r] = a[r * cols + c], with both the global
// read and the global write coalesced. Check with `gpuzzle run 34`; stuck? `gpuzzle hint 34`.
extern "C" __global__ void transpose(float* out, const float* a, int rows, int cols) {
    __shared__ float tile[TILE][TILE];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int x = blockIdx.x * TILE + tx;
    int y = blockIdx.y * TILE + ty;
    if (x < cols && y < rows) {
        tile[ty][tx] = a[y * cols + x];
    }
    __syncthreads();
    int tx_out = blockIdx.y * TILE + tx;
    int ty_out = blockIdx.x * TILE + ty;
    if (tx_out < rows && ty_out < cols) {
        out[ty_out * rows + tx_out] = tile[ty][tx];  // @bug
    }
}
