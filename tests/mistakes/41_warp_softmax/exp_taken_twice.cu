// expect: fail
// kind: wrong-output
// help-has: expf(v[k])
// why: held-out (stop 44): v[k] already holds the exponential; the store takes expf of it again
// Puzzle 41 · Warp-per-row fused softmax: one warp per row, the row in registers, shuffles for
// butterfly shuffles for the maximum and the sum, one read and one write per element).
#include <cfloat>

extern "C" __global__ void softmax_rows(float* out, const float* x, int rows, int cols) {
    int row = blockIdx.x * 4 + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    // The whole warp leaves together: no shuffle below misses a lane.
    if (row >= rows) {
        return;
    }
    const float* xr = x + row * cols;
    float v[PER_LANE];
    float m = -FLT_MAX;
#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
        int c = lane + 32 * k;
        v[k] = c < cols ? xr[c] : -FLT_MAX;
        m = fmaxf(m, v[k]);
    }
    for (int o = 16; o > 0; o /= 2) {
        m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));
    }
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
        v[k] = lane + 32 * k < cols ? expf(v[k] - m) : 0.0f;
        sum += v[k];
    }
    for (int o = 16; o > 0; o /= 2) {
        sum += __shfl_xor_sync(0xffffffff, sum, o);
    }
#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
        int c = lane + 32 * k;
        if (c < cols) {
            out[row * cols + c] = expf(v[k]) / sum;
        }
    }
}
