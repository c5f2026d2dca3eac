// expect: fail
// kind: uninitialized-read
// line: @bug
// help-has: / 2
// help-not: halo
// why: sizes the scratch for 2 * TPB and starts the max tree at stride TPB, so the first round reads the upper half nobody wrote.
// Puzzle 38 · Numerically stable softmax
#include <cfloat>

extern "C" __global__ void softmax(float* out, const float* x, int rows, int cols) {
    __shared__ float scratch[2 * TPB];
    int me = threadIdx.x;
    const float* row = x + blockIdx.x * cols;
    float best = -FLT_MAX;
    for (int c = me; c < cols; c += TPB) best = fmaxf(best, row[c]);
    scratch[me] = best;
    __syncthreads();
    for (int gap = TPB; gap > 0; gap >>= 1) {
        if (me < gap) scratch[me] = fmaxf(scratch[me], scratch[me + gap]);  // @bug
        __syncthreads();
    }
    float m = scratch[0];
    __syncthreads();
    float total = 0.0f;
    for (int c = me; c < cols; c += TPB) total += expf(row[c] - m);
    scratch[me] = total;
    __syncthreads();
    for (int gap = TPB / 2; gap > 0; gap >>= 1) {
        if (me < gap) scratch[me] += scratch[me + gap];
        __syncthreads();
    }
    total = scratch[0];
    for (int c = me; c < cols; c += TPB) out[blockIdx.x * cols + c] = expf(row[c] - m) / total;
}
