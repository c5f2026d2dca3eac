// lazy: no running maximum: each thread keeps its (at most 4) columns in registers, then puzzle 38's two reductions (maximum, then sum) over them, reading every element once
#include <cfloat>
extern "C" __global__ void softmax(float* out, const float* x, int rows, int cols) {
    __shared__ float red[TPB];
    int t = threadIdx.x;
    const float* xr = x + blockIdx.x * cols;
    float* outr = out + blockIdx.x * cols;
    float v[4];
    float m = -FLT_MAX;
#pragma unroll
    for (int k = 0; k < 4; k++) {
        int c = t + k * TPB;
        v[k] = c < cols ? xr[c] : -FLT_MAX;
        m = fmaxf(m, v[k]);
    }
    red[t] = m;
    __syncthreads();
    for (int s = TPB / 2; s > 0; s /= 2) {
        if (t < s) red[t] = fmaxf(red[t], red[t + s]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < 4; k++) {
        v[k] = t + k * TPB < cols ? expf(v[k] - m) : 0.0f;
        sum += v[k];
    }
    red[t] = sum;
    __syncthreads();
    for (int s = TPB / 2; s > 0; s /= 2) {
        if (t < s) red[t] += red[t + s];
        __syncthreads();
    }
    sum = red[0];
#pragma unroll
    for (int k = 0; k < 4; k++) {
        int c = t + k * TPB;
        if (c < cols) outr[c] = v[k] / sum;
    }
}
