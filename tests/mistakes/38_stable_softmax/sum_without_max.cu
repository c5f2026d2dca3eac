// expect: fail
// kind: wrong-output
// why: finds the maximum, but sums expf(x) without subtracting it: the sum overflows to inf.
// help-has: expf(x - m) | x - m | subtract
// help-not: __syncthreads()
// Puzzle 38 · Numerically stable softmax: out[r][c] = exp(x[r][c] - max_r) / sum_k exp(x[r][k] - max_r),
// one block per row. Check with `gpuzzle run 38`; stuck? `gpuzzle hint 38`.
#include <cfloat>

extern "C" __global__ void softmax(float* out, const float* x, int rows, int cols) {
    __shared__ float acc[TPB];
    int k = threadIdx.x;
    const float* xr = x + blockIdx.x * cols;
    float hi = -FLT_MAX;
    for (int c = k; c < cols; c += TPB) {
        hi = fmaxf(hi, xr[c]);
    }
    acc[k] = hi;
    __syncthreads();
    for (int w = TPB / 2; w > 0; w /= 2) {
        if (k < w) {
            acc[k] = fmaxf(acc[k], acc[k + w]);
        }
        __syncthreads();
    }
    hi = acc[0];
    __syncthreads();
    float s = 0.0f;
    for (int c = k; c < cols; c += TPB) {
        s += expf(xr[c]);
    }
    acc[k] = s;
    __syncthreads();
    for (int w = TPB / 2; w > 0; w /= 2) {
        if (k < w) {
            acc[k] += acc[k + w];
        }
        __syncthreads();
    }
    s = acc[0];
    for (int c = k; c < cols; c += TPB) {
        out[blockIdx.x * cols + c] = expf(xr[c] - hi) / s;
    }
}
