// expect: fail
// kind: wrong-output
// help-has: red_d[0]
// why: held-out (stop 44): after the merge each thread divides by its own partial d: red_d[0] is never read back
// Puzzle 39 · Online softmax: the softmax of puzzle 38 with the maximum and the sum found in one
// the pairs merged across the block in shared memory, then one pass for the outputs).
#include <cfloat>

extern "C" __global__ void softmax(float* out, const float* x, int rows, int cols) {
    __shared__ float red_m[TPB];
    __shared__ float red_d[TPB];
    int t = threadIdx.x;
    const float* xr = x + blockIdx.x * cols;
    float* outr = out + blockIdx.x * cols;

    float m = -FLT_MAX;
    float d = 0.0f;
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
            float m1 = red_m[t];
            float m2 = red_m[t + s];
            float mm = fmaxf(m1, m2);
            red_d[t] = red_d[t] * expf(m1 - mm) + red_d[t + s] * expf(m2 - mm);
            red_m[t] = mm;
        }
        __syncthreads();
    }
    m = red_m[0];

    for (int c = t; c < cols; c += TPB) {
        outr[c] = expf(xr[c] - m) / d;
    }
}
