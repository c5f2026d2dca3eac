// expect: fail
// kind: over-budget
// counter: sectors_per_access
// why: swaps the roles so the write is coalesced: now the read goes down a column.
// help-has: shared | tile
// help-not: guard the access
// Puzzle 34 · Coalesced transpose: out[c * rows + r] = a[r * cols + c], with both the global
// read and the global write coalesced. Check with `gpuzzle run 34`; stuck? `gpuzzle hint 34`.
extern "C" __global__ void transpose(float* out, const float* a, int rows, int cols) {
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    // Threads walk along the rows of out (coalesced writes); the reads go down a column of a.
    int out_row = blockIdx.x * TILE + threadIdx.y;
    int out_col = blockIdx.y * TILE + threadIdx.x;
    if (out_row < cols && out_col < rows) {
        out[out_row * rows + out_col] = a[out_col * cols + out_row];
    }
}
