// expect: fail
// kind: wrong-output
// why: the textbook formula: exp of the raw scores overflows to inf and the rows become NaN.
// help-has: maximum | x - m | - max | subtract
// help-not: guard the access
// Puzzle 38 · Numerically stable softmax: out[r][c] = exp(x[r][c] - max_r) / sum_k exp(x[r][k] - max_r),
// one block per row. Check with `gpuzzle run 38`; stuck? `gpuzzle hint 38`.
#include <cfloat>

extern "C" __global__ void softmax(float* out, const float* x, int rows, int cols) {
    __shared__ float red[TPB];
    int t = threadIdx.x;
    const float* xr = x + blockIdx.x * cols;
    float sum = 0.0f;
    for (int c = t; c < cols; c += TPB) {
        sum += expf(xr[c]);
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
        out[blockIdx.x * cols + c] = expf(xr[c]) / sum;
    }
}
