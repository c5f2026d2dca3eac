// lazy: no reduction; every thread reads its whole row for the maximum and the sum
#include <cfloat>

extern "C" __global__ void softmax(float* out, const float* x, int rows, int cols) {
    const float* xr = x + blockIdx.x * cols;
    float m = -FLT_MAX;
    for (int c = 0; c < cols; c++) {
        m = fmaxf(m, xr[c]);
    }
    float sum = 0.0f;
    for (int c = 0; c < cols; c++) {
        sum += expf(xr[c] - m);
    }
    for (int c = threadIdx.x; c < cols; c += TPB) {
        out[blockIdx.x * cols + c] = expf(xr[c] - m) / sum;
    }
}
