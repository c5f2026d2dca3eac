// expect: fail
// kind: wrong-output
// why: merges two partial sums against the left one's maximum instead of the larger: when the
// why: right maximum is much larger, expf(m_right - m_left) overflows.
// help-has: fmaxf | larger | rescale
// help-not: __syncthreads()
// Puzzle 39 · Online softmax: the softmax of puzzle 38 with the maximum and the sum found in one
// pass. Check with `gpuzzle run 39`; stuck? `gpuzzle hint 39`.
#include <cfloat>

extern "C" __global__ void softmax(float* out, const float* x, int rows, int cols) {
    __shared__ float pm[TPB];
    __shared__ float ps[TPB];
    int me = threadIdx.x;
    const float* xr = x + blockIdx.x * cols;
    float run_max = -FLT_MAX;
    float run_sum = 0.0f;
    for (int c = me; c < cols; c += TPB) {
        float v = xr[c];
        float nm = fmaxf(run_max, v);
        run_sum = run_sum * expf(run_max - nm) + expf(v - nm);
        run_max = nm;
    }
    pm[me] = run_max;
    ps[me] = run_sum;
    __syncthreads();
    for (int h = TPB / 2; h > 0; h /= 2) {
        if (me < h) {
            ps[me] = ps[me] + ps[me + h] * expf(pm[me + h] - pm[me]);
        }
        __syncthreads();
    }
    float m = pm[0];
    float d = ps[0];
    for (int c = me; c < cols; c += TPB) {
        out[blockIdx.x * cols + c] = expf(xr[c] - m) / d;
    }
}
