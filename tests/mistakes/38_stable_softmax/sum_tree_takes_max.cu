// expect: fail
// kind: wrong-output
// help-has: red[t] += red[t + s] | red[t + s] | add
// help-not: subtract the max
// why: the second tree was copied from the max tree and still takes fmaxf: the "sum" is the
// why: largest partial sum. The sum tree adds: red[t] += red[t + s].
// Puzzle 38 · Numerically stable softmax: out[r][c] = exp(x[r][c] - max_r) / sum_k exp(x[r][k] - max_r),
#include <cfloat>

extern "C" __global__ void softmax(float* out, const float* x, int rows, int cols) {
    __shared__ float red[TPB];
    int t = threadIdx.x;
    const float* src = x + blockIdx.x * cols;
    float* dst = out + blockIdx.x * cols;
    float mx = -FLT_MAX;
    for (int c = t; c < cols; c += TPB) {
        mx = fmaxf(mx, src[c]);
    }
    red[t] = mx;
    __syncthreads();
    for (int s = TPB / 2; s > 0; s /= 2) {
        if (t < s) {
            red[t] = fmaxf(red[t], red[t + s]);
        }
        __syncthreads();
    }
    mx = red[0];
    __syncthreads();
    float acc = 0.0f;
    for (int c = t; c < cols; c += TPB) {
        acc += expf(src[c] - mx);
    }
    red[t] = acc;
    __syncthreads();
    for (int s = TPB / 2; s > 0; s /= 2) {
        if (t < s) {
            red[t] = fmaxf(red[t], red[t + s]);  // @bug
        }
        __syncthreads();
    }
    acc = red[0];
    for (int c = t; c < cols; c += TPB) {
        dst[c] = expf(src[c] - mx) / acc;
    }
}
