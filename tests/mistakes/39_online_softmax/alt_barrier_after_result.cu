// expect: pass
// why: the (m, d) tree of the solution, its two steps merged in a helper, and one more barrier after every thread has read the result
// Puzzle 39 · Online softmax: the softmax of puzzle 38 with the maximum and the sum found in one
// pass. Check with `gpuzzle run 39`; stuck? `gpuzzle hint 39`.
#include <cfloat>
__device__ void merge(float& m, float& d, float m2, float d2) {
    float mm = fmaxf(m, m2);
    d = d * expf(m - mm) + d2 * expf(m2 - mm);
    m = mm;
}
extern "C" __global__ void softmax(float* out, const float* x, int rows, int cols) {
    __shared__ float sm[TPB];
    __shared__ float sd[TPB];
    int t = threadIdx.x;
    const float* xr = x + blockIdx.x * cols;
    float m = -FLT_MAX, d = 0.0f;
    for (int c = t; c < cols; c += TPB) {
        merge(m, d, xr[c], 1.0f);
    }
    sm[t] = m;
    sd[t] = d;
    __syncthreads();
    for (int s = TPB / 2; s > 0; s /= 2) {
        if (t < s) {
            float m1 = sm[t], d1 = sd[t];
            merge(m1, d1, sm[t + s], sd[t + s]);
            sm[t] = m1;
            sd[t] = d1;
        }
        __syncthreads();
    }
    float rm = sm[0], rd = sd[0];
    __syncthreads();
    for (int c = t; c < cols; c += TPB) {
        out[blockIdx.x * cols + c] = expf(xr[c] - rm) / rd;
    }
}
