// expect: pass
// why: every lane starts with the online (max, sum) pair of its columns and the butterfly merges
// why: the pairs, rescaling the sums: one reduction instead of two.
// Puzzle 41 · Warp-per-row fused softmax: one warp per row, the row in registers, shuffles for
// the maximum and the sum. Check with `gpuzzle run 41`; stuck? `gpuzzle hint 41`.
#include <cfloat>

extern "C" __global__ void softmax_rows(float* out, const float* x, int rows, int cols) {
    int row = blockIdx.x * 4 + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) {
        return;
    }
    float v[PER_LANE];
    float m = -FLT_MAX, d = 0.0f;
    for (int k = 0; k < PER_LANE; k++) {
        int c = lane + 32 * k;
        v[k] = c < cols ? x[row * cols + c] : -FLT_MAX;
        if (c < cols) {
            float m2 = fmaxf(m, v[k]);
            d = d * expf(m - m2) + expf(v[k] - m2);
            m = m2;
        }
    }
    for (int o = 16; o > 0; o /= 2) {
        float m_other = __shfl_xor_sync(0xffffffff, m, o);
        float d_other = __shfl_xor_sync(0xffffffff, d, o);
        float mm = fmaxf(m, m_other);
        d = d * expf(m - mm) + d_other * expf(m_other - mm);
        m = mm;
    }
    for (int k = 0; k < PER_LANE; k++) {
        int c = lane + 32 * k;
        if (c < cols) {
            out[row * cols + c] = expf(v[k] - m) / d;
        }
    }
}
