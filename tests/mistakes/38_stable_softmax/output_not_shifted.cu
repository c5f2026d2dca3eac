// expect: fail
// kind: wrong-output
// help-has: expf(xr[c]) / sum
// why: held-out (stop 44): the output exponentiates x without subtracting the row maximum the sum used
// Puzzle 38 · Numerically stable softmax: out[r][c] = exp(x[r][c] - max_r) / sum_k exp(x[r][k] - max_r),
// maximum, the sum of exp(x - max), the output; each reduced across the block in shared memory).
#include <cfloat>

extern "C" __global__ void softmax(float* out, const float* x, int rows, int cols) {
    __shared__ float red[TPB];
    int t = threadIdx.x;
    const float* xr = x + blockIdx.x * cols;
    float* outr = out + blockIdx.x * cols;

    float m = -FLT_MAX;
    for (int c = t; c < cols; c += TPB) {
        m = fmaxf(m, xr[c]);
    }
    red[t] = m;
    __syncthreads();
    for (int s = TPB / 2; s > 0; s /= 2) {
        if (t < s) {
            red[t] = fmaxf(red[t], red[t + s]);
        }
        __syncthreads();
    }
    m = red[0];
    // Everyone has read the maximum before red is reused for the sums.
    __syncthreads();

    float sum = 0.0f;
    for (int c = t; c < cols; c += TPB) {
        sum += expf(xr[c] - m);
    }
    red[t] = sum;
    __syncthreads();
    for (int s = TPB / 2; s > 0; s /= 2) {
        if (t < s) {
            red[t] += red[t + s];
        }
        __syncthreads();
    }
    sum = red[0];

    for (int c = t; c < cols; c += TPB) {
        outr[c] = expf(xr[c]) / sum;
    }
}
