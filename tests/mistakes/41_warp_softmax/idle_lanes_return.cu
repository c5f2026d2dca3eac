// expect: fail
// kind: warp-sync
// line: @bug
// help-has: -FLT_MAX | return | 0.0f | zero
// help-not: __syncthreads()
// why: lanes with no column return early, yet the shuffles' mask promises all 32 lanes.
// Puzzle 41 · Warp-per-row fused softmax: one warp per row, the row in registers, shuffles for
// the maximum and the sum. Check with `gpuzzle run 41`; stuck? `gpuzzle hint 41`.
#include <cfloat>

extern "C" __global__ void softmax_rows(float* out, const float* x, int rows, int cols) {
    int row = blockIdx.x * 4 + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows || lane >= cols) {
        return;
    }
    const float* xr = x + row * cols;
    float v[PER_LANE];
    float m = -FLT_MAX;
    for (int k = 0; k < PER_LANE; k++) {
        int c = lane + 32 * k;
        v[k] = c < cols ? xr[c] : -FLT_MAX;
        m = fmaxf(m, v[k]);
    }
    for (int o = 16; o > 0; o /= 2) {
        m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));  // @bug
    }
    float sum = 0.0f;
    for (int k = 0; k < PER_LANE; k++) {
        v[k] = lane + 32 * k < cols ? expf(v[k] - m) : 0.0f;
        sum += v[k];
    }
    for (int o = 16; o > 0; o /= 2) {
        sum += __shfl_xor_sync(0xffffffff, sum, o);
    }
    for (int k = 0; k < PER_LANE; k++) {
        int c = lane + 32 * k;
        if (c < cols) {
            out[row * cols + c] = v[k] / sum;
        }
    }
}
