// lazy: no butterfly: every lane fetches the 31 other lanes' partial maximum and sum one shuffle at a time
#include <cfloat>

extern "C" __global__ void softmax_rows(float* out, const float* x, int rows, int cols) {
    int row = blockIdx.x * 4 + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) {
        return;
    }
    const float* xr = x + row * cols;
    float v[PER_LANE];
    float pm = -FLT_MAX;
#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
        int c = lane + 32 * k;
        v[k] = c < cols ? xr[c] : -FLT_MAX;
        pm = fmaxf(pm, v[k]);
    }
    float m = -FLT_MAX;
    for (int src = 0; src < 32; src++) {
        m = fmaxf(m, __shfl_sync(0xffffffff, pm, src));
    }
    float ps = 0.0f;
#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
        v[k] = lane + 32 * k < cols ? expf(v[k] - m) : 0.0f;
        ps += v[k];
    }
    float sum = 0.0f;
    for (int src = 0; src < 32; src++) {
        sum += __shfl_sync(0xffffffff, ps, src);
    }
#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
        int c = lane + 32 * k;
        if (c < cols) {
            out[row * cols + c] = v[k] / sum;
        }
    }
}
