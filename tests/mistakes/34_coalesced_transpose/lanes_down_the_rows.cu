// expect: fail
// kind: over-budget
// counter: sectors_per_access
// why: puts threadIdx.x on the row, so the write of out runs along its rows but the read of a
// why: goes down a column of a; no shared tile.
// help-has: __shared__ | tile
// help-not: guard the access
// Puzzle 34 · Coalesced transpose: out[c * rows + r] = a[r * cols + c], with both the global
// read and the global write coalesced. Check with `gpuzzle run 34`; stuck? `gpuzzle hint 34`.
extern "C" __global__ void transpose(float* out, const float* a, int rows, int cols) {
    int r = blockIdx.y * TILE + threadIdx.x;
    int c = blockIdx.x * TILE + threadIdx.y;
    if (r >= rows || c >= cols) return;
    float v = a[r * cols + c];
    out[c * rows + r] = v;
}
