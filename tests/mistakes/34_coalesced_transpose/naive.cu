// expect: fail
// kind: over-budget
// counter: sectors_per_access
// why: one thread per element, writing down a column of out.
// help-has: shared | tile
// help-not: guard the access
// Puzzle 34 · Coalesced transpose: out[c * rows + r] = a[r * cols + c], with both the global
// read and the global write coalesced. Check with `gpuzzle run 34`; stuck? `gpuzzle hint 34`.
extern "C" __global__ void transpose(float* out, const float* a, int rows, int cols) {
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    if (row < rows && col < cols) {
        out[col * rows + row] = a[row * cols + col];
    }
}
