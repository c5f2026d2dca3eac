// expect: fail
// kind: wrong-output
// why: rescales inside each thread, then merges the threads' sums by adding them as they are.
// help-has: rescale | expf(m | exp(m
// help-not: guard the access
// Puzzle 39 · Online softmax: the softmax of puzzle 38 with the maximum and the sum found in one
// pass. Check with `gpuzzle run 39`; stuck? `gpuzzle hint 39`.
#include <cfloat>

extern "C" __global__ void softmax(float* out, const float* x, int rows, int cols) {
    __shared__ float red_m[TPB], red_d[TPB];
    int t = threadIdx.x;
    const float* xr = x + blockIdx.x * cols;
    float m = -FLT_MAX, d = 0.0f;
    for (int c = t; c < cols; c += TPB) {
        float v = xr[c];
        float m2 = fmaxf(m, v);
        d = d * expf(m - m2) + expf(v - m2);
        m = m2;
    }
    red_m[t] = m;
    red_d[t] = d;
    __syncthreads();
    for (int s = TPB / 2; s > 0; s /= 2) {
        if (t < s) {
            red_m[t] = fmaxf(red_m[t], red_m[t + s]);
            red_d[t] += red_d[t + s];
        }
        __syncthreads();
    }
    m = red_m[0];
    d = red_d[0];
    for (int c = t; c < cols; c += TPB) {
        out[blockIdx.x * cols + c] = expf(xr[c] - m) / d;
    }
}
