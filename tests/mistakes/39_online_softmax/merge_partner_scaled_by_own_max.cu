// expect: fail
// kind: wrong-output
// help-has: m2 - mm | sm[t + s] | partner's max | partner's maximum | other half's max
// why: in the tree merge the partner's sum is rescaled with the thread's own max (m1 - mm), copied
// why: from the term before it: the partner's sum must be scaled by expf(m2 - mm).
// Puzzle 39 · Online softmax: the softmax of puzzle 38 with the maximum and the sum found in one
#include <cfloat>

extern "C" __global__ void softmax(float* out, const float* x, int rows, int cols) {
    __shared__ float sm[TPB];
    __shared__ float sd[TPB];
    int t = threadIdx.x;
    const float* row = x + blockIdx.x * cols;
    float m = -FLT_MAX;
    float d = 0.0f;
    for (int c = t; c < cols; c += TPB) {
        float v = row[c];
        float nm = fmaxf(m, v);
        d = d * expf(m - nm) + expf(v - nm);
        m = nm;
    }
    sm[t] = m;
    sd[t] = d;
    __syncthreads();
    for (int s = TPB / 2; s > 0; s /= 2) {
        if (t < s) {
            float m1 = sm[t];
            float m2 = sm[t + s];
            float mm = fmaxf(m1, m2);
            sd[t] = sd[t] * expf(m1 - mm) + sd[t + s] * expf(m1 - mm);  // @bug
            sm[t] = mm;
        }
        __syncthreads();
    }
    m = sm[0];
    d = sd[0];
    for (int c = t; c < cols; c += TPB) {
        out[blockIdx.x * cols + c] = expf(row[c] - m) / d;
    }
}
