// expect: pass
// why: folds with __shfl_down_sync and broadcasts lane 0's result with __shfl_sync: 6 shuffles per reduction instead of the butterfly's 5.
// Puzzle 41 · Warp-per-row fused softmax: one warp per row, the row in registers, shuffles for
// the maximum and the sum. Check with `gpuzzle run 41`; stuck? `gpuzzle hint 41`.
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
        m = fmaxf(m, __shfl_down_sync(0xffffffff, m, o));
    }
    m = __shfl_sync(0xffffffff, m, 0);
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
        v[k] = lane + 32 * k < cols ? expf(v[k] - m) : 0.0f;
        sum += v[k];
    }
    for (int o = 16; o > 0; o /= 2) {
        sum += __shfl_down_sync(0xffffffff, sum, o);
    }
    sum = __shfl_sync(0xffffffff, sum, 0);
#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
        int c = lane + 32 * k;
        if (c < cols) {
            out[row * cols + c] = v[k] / sum;
        }
    }
}
