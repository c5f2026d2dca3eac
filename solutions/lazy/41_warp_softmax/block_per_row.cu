// lazy: puzzle 38's kernel (one block per row, shared-memory trees), launched with 4 rows per block
#include <cfloat>

extern "C" __global__ void softmax_rows(float* out, const float* x, int rows, int cols) {
    __shared__ float red[128];
    int t = threadIdx.x;
    for (int row = blockIdx.x * 4; row < blockIdx.x * 4 + 4 && row < rows; row++) {
        const float* xr = x + row * cols;
        float v = t < cols ? xr[t] : -FLT_MAX;
        red[t] = v;
        __syncthreads();
        for (int s = 64; s > 0; s /= 2) {
            if (t < s) {
                red[t] = fmaxf(red[t], red[t + s]);
            }
            __syncthreads();
        }
        float m = red[0];
        __syncthreads();
        float e = t < cols ? expf(v - m) : 0.0f;
        red[t] = e;
        __syncthreads();
        for (int s = 64; s > 0; s /= 2) {
            if (t < s) {
                red[t] += red[t + s];
            }
            __syncthreads();
        }
        if (t < cols) {
            out[row * cols + t] = e / red[0];
        }
        __syncthreads();
    }
}
