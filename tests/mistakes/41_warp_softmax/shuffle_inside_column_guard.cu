// expect: fail
// kind: warp-sync
// line: @bug
// help-has: every lane | all 32 | outside
// help-not: __syncthreads()
// why: folds the maximum only in lanes that hold a column of a short row, so the shuffle's mask
// why: names lanes that never reach it.
// Puzzle 41 · Warp-per-row fused softmax: one warp per row, the row in registers, shuffles for
// the maximum and the sum. Check with `gpuzzle run 41`; stuck? `gpuzzle hint 41`.
#include <cfloat>

extern "C" __global__ void softmax_rows(float* out, const float* x, int rows, int cols) {
    int r = blockIdx.x * 4 + threadIdx.x / 32;
    int ln = threadIdx.x % 32;
    if (r >= rows) {
        return;
    }
    const float* src = x + r * cols;
    float vals[PER_LANE];
    float mx = -FLT_MAX;
#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
        int c = ln + 32 * k;
        vals[k] = c < cols ? src[c] : -FLT_MAX;
        mx = fmaxf(mx, vals[k]);
    }
    if (ln < cols) {
        for (int o = 16; o > 0; o /= 2) {
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffff, mx, o));  // @bug
        }
    }
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
        vals[k] = ln + 32 * k < cols ? expf(vals[k] - mx) : 0.0f;
        sum += vals[k];
    }
    for (int o = 16; o > 0; o /= 2) {
        sum += __shfl_xor_sync(0xffffffff, sum, o);
    }
#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
        int c = ln + 32 * k;
        if (c < cols) {
            out[r * cols + c] = vals[k] / sum;
        }
    }
}
