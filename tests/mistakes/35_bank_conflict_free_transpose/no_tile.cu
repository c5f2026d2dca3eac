// expect: fail
// kind: over-budget
// counter: sectors_per_access
// why: avoids bank conflicts by not using shared memory: the write goes down a column again.
// help-has: shared | tile
// help-not: guard the access
// Puzzle 35 · Bank-conflict-free transpose: out[c * rows + r] = a[r * cols + c] through a shared
// tile, with no bank conflicts. Check with `gpuzzle run 35`; stuck? `gpuzzle hint 35`.
extern "C" __global__ void transpose(float* out, const float* a, int rows, int cols) {
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    if (row < rows && col < cols) {
        out[col * rows + row] = a[row * cols + col];
    }
}
