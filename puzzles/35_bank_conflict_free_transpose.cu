// Puzzle 35 · Bank-conflict-free transpose: out[c * rows + r] = a[r * cols + c] through a shared
// tile, with no bank conflicts. Check with `gpuzzle run 35`; stuck? `gpuzzle hint 35`.
extern "C" __global__ void transpose(float* out, const float* a, int rows, int cols) {
    // FILL ME IN (roughly 13 lines). A start, with the tile's first shape:
    //     __shared__ float tile[TILE][TILE];
    //     int col = blockIdx.x * TILE + threadIdx.x;
    //     int row = blockIdx.y * TILE + threadIdx.y;
}
