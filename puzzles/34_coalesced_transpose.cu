// Puzzle 34 · Coalesced transpose: out[c * rows + r] = a[r * cols + c], with both the global
// read and the global write coalesced. Check with `gpuzzle run 34`; stuck? `gpuzzle hint 34`.
extern "C" __global__ void transpose(float* out, const float* a, int rows, int cols) {
    // FILL ME IN (roughly 12 lines). A start, the element of `a` this thread reads:
    //     int col = blockIdx.x * TILE + threadIdx.x;
    //     int row = blockIdx.y * TILE + threadIdx.y;
}
