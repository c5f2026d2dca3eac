// expect: fail
// kind: over-budget
// counter: global_reads
// why: a warp per row with butterfly shuffles, but each pass reads the row from global memory again.
// help-has: register | keep | once
// help-not: guard the access
// Puzzle 41 · Warp-per-row fused softmax: one warp per row, the row in registers, shuffles for
// the maximum and the sum. Check with `gpuzzle run 41`; stuck? `gpuzzle hint 41`.
#include <cfloat>

extern "C" __global__ void softmax_rows(float* out, const float* x, int rows, int cols) {
    int row = blockIdx.x * 4 + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) {
        return;
    }
    const float* xr = x + row * cols;
    float m = -FLT_MAX;
    for (int c = lane; c < cols; c += 32) {
        m = fmaxf(m, xr[c]);
    }
    for (int o = 16; o > 0; o /= 2) {
        m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));
    }
    float sum = 0.0f;
    for (int c = lane; c < cols; c += 32) {
        sum += expf(xr[c] - m);
    }
    for (int o = 16; o > 0; o /= 2) {
        sum += __shfl_xor_sync(0xffffffff, sum, o);
    }
    for (int c = lane; c < cols; c += 32) {
        out[row * cols + c] = expf(xr[c] - m) / sum;
    }
}
