// expect: fail
// kind: over-budget
// counter: global_reads
// why: the three passes of puzzle 38 (maximum, sum, output): correct, one read per element too many.
// help-has: online | one pass | running maximum | rescale | two passes
// help-not: guard the access
// Puzzle 39 · Online softmax: the softmax of puzzle 38 with the maximum and the sum found in one
// pass. Check with `gpuzzle run 39`; stuck? `gpuzzle hint 39`.
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
        outr[c] = expf(xr[c] - m) / sum;
    }
}
