// lazy: the lane's columns kept in an array indexed at run time, which lives in local memory (off chip), not in registers
#include <cfloat>

extern "C" __global__ void softmax_rows(float* out, const float* x, int rows, int cols) {
    int row = blockIdx.x * 4 + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) {
        return;
    }
    const float* xr = x + row * cols;
    float v[PER_LANE];
    int mine = 0;  // how many columns this lane holds: a bound known only at run time
    for (int c = lane; c < cols; c += 32) {
        v[mine++] = xr[c];
    }
    float m = -FLT_MAX;
    for (int k = 0; k < mine; k++) {
        m = fmaxf(m, v[k]);
    }
    for (int o = 16; o > 0; o /= 2) {
        m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));
    }
    float sum = 0.0f;
    for (int k = 0; k < mine; k++) {
        v[k] = expf(v[k] - m);
        sum += v[k];
    }
    for (int o = 16; o > 0; o /= 2) {
        sum += __shfl_xor_sync(0xffffffff, sum, o);
    }
    for (int k = 0; k < mine; k++) {
        out[row * cols + lane + 32 * k] = v[k] / sum;
    }
}
