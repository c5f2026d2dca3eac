// lazy: the scores are whole numbers, so the row maximum is taken with __reduce_max_sync on ints, not a butterfly of shuffles
#include <cfloat>
extern "C" __global__ void softmax_rows(float* out, const float* x, int rows, int cols) {
    int row = blockIdx.x * 4 + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;
    const float* xr = x + row * cols;
    float v[PER_LANE];
    int m = -2147483647;
#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
        int c = lane + 32 * k;
        v[k] = c < cols ? xr[c] : -FLT_MAX;
        if (c < cols) m = max(m, (int)v[k]);
    }
    float mf = (float)__reduce_max_sync(0xffffffff, m);
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
        v[k] = lane + 32 * k < cols ? expf(v[k] - mf) : 0.0f;
        sum += v[k];
    }
    for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffff, sum, o);
#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
        int c = lane + 32 * k;
        if (c < cols) out[row * cols + c] = v[k] / sum;
    }
}
