// expect: fail
// kind: over-budget
// counter: global_reads
// why: stable, but every thread finds the row's maximum and sum by reading the whole row itself.
// help-has: reduction | shared | tree | together
// help-not: guard the access
// Puzzle 38 · Numerically stable softmax: out[r][c] = exp(x[r][c] - max_r) / sum_k exp(x[r][k] - max_r),
// one block per row. Check with `gpuzzle run 38`; stuck? `gpuzzle hint 38`.
#include <cfloat>

extern "C" __global__ void softmax(float* out, const float* x, int rows, int cols) {
    const float* xr = x + blockIdx.x * cols;
    float m = -FLT_MAX;
    for (int c = 0; c < cols; c++) {
        m = fmaxf(m, xr[c]);
    }
    float sum = 0.0f;
    for (int c = 0; c < cols; c++) {
        sum += expf(xr[c] - m);
    }
    for (int c = threadIdx.x; c < cols; c += TPB) {
        out[blockIdx.x * cols + c] = expf(xr[c] - m) / sum;
    }
}
