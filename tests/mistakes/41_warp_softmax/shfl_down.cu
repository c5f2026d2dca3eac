// expect: fail
// kind: wrong-output
// why: reduces with __shfl_down_sync as in puzzle 27: only lane 0 ends with the maximum and the sum,
// why: but every lane uses its own partial values.
// help-has: __shfl_xor_sync | xor | butterfly | broadcast | __shfl_sync
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
    float v[PER_LANE];
    float m = -FLT_MAX;
    for (int k = 0; k < PER_LANE; k++) {
        int c = lane + 32 * k;
        v[k] = c < cols ? xr[c] : -FLT_MAX;
        m = fmaxf(m, v[k]);
    }
    for (int o = 16; o > 0; o /= 2) {
        m = fmaxf(m, __shfl_down_sync(0xffffffff, m, o));
    }
    float sum = 0.0f;
    for (int k = 0; k < PER_LANE; k++) {
        v[k] = lane + 32 * k < cols ? expf(v[k] - m) : 0.0f;
        sum += v[k];
    }
    for (int o = 16; o > 0; o /= 2) {
        sum += __shfl_down_sync(0xffffffff, sum, o);
    }
    for (int k = 0; k < PER_LANE; k++) {
        int c = lane + 32 * k;
        if (c < cols) {
            out[row * cols + c] = v[k] / sum;
        }
    }
}
