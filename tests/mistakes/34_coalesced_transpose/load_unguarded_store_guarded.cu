// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: rows | cols
// help-not: 0.0f
// help-not: zero
// why: guards the write of out but not the read of a into the tile; the tile's elements outside
// why: the matrix are never read back (the write's guard skips them), so only the load needs a guard.
// Puzzle 34 · Coalesced transpose: out[c * rows + r] = a[r * cols + c], with both the global
// read and the global write coalesced. Check with `gpuzzle run 34`; stuck? `gpuzzle hint 34`.
extern "C" __global__ void transpose(float* out, const float* a, int rows, int cols) {
    __shared__ float buf[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    buf[threadIdx.y][threadIdx.x] = a[y * cols + x];  // @bug
    __syncthreads();
    int ox = blockIdx.y * TILE + threadIdx.x;
    int oy = blockIdx.x * TILE + threadIdx.y;
    if (oy < cols && ox < rows) {
        out[oy * rows + ox] = buf[threadIdx.x][threadIdx.y];
    }
}
