// expect: fail
// kind: wrong-output
// help-has: lane + 32 * k | + 32 * k | c = lane
// help-not: __syncwarp
// why: the store loop writes v[k] to column `lane` for every k, so columns 32 and up are never
// why: written and column lane ends with the last chunk's value. The column is lane + 32 * k.
// Puzzle 41 · Warp-per-row fused softmax: one warp per row, the row in registers, shuffles for
#include <cfloat>

extern "C" __global__ void softmax_rows(float* out, const float* x, int rows, int cols) {
    int r = blockIdx.x * 4 + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (r >= rows) {
        return;
    }
    float e[PER_LANE];
    float hi = -FLT_MAX;
    for (int k = 0; k < PER_LANE; k++) {
        int c = lane + 32 * k;
        e[k] = c < cols ? x[r * cols + c] : -FLT_MAX;
        hi = fmaxf(hi, e[k]);
    }
    for (int o = 16; o > 0; o /= 2) {
        hi = fmaxf(hi, __shfl_xor_sync(0xffffffff, hi, o));
    }
    float tot = 0.0f;
    for (int k = 0; k < PER_LANE; k++) {
        e[k] = lane + 32 * k < cols ? expf(e[k] - hi) : 0.0f;
        tot += e[k];
    }
    for (int o = 16; o > 0; o /= 2) {
        tot += __shfl_xor_sync(0xffffffff, tot, o);
    }
    for (int k = 0; k < PER_LANE; k++) {
        if (lane + 32 * k < cols) {
            out[r * cols + lane] = e[k] / tot;  // @bug
        }
    }
}
