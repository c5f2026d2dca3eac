// expect: fail
// kind: shared-race
// line: @bug
// help-has: __syncthreads()
// help-not: atomicAdd
// help-not: inside the if
// why: puts the tree's barrier at the top of each step, so nothing orders the last step's write
// why: of red[0] before every thread reads the maximum from it.
// Puzzle 38 · Numerically stable softmax: out[r][c] = exp(x[r][c] - max_r) / sum_k exp(x[r][k] - max_r),
// one block per row. Check with `gpuzzle run 38`; stuck? `gpuzzle hint 38`.
#include <cfloat>

extern "C" __global__ void softmax(float* out, const float* x, int rows, int cols) {
    __shared__ float part[TPB];
    int me = threadIdx.x;
    const float* row = x + blockIdx.x * cols;
    float best = -FLT_MAX;
    for (int c = me; c < cols; c += TPB) {
        best = fmaxf(best, row[c]);
    }
    part[me] = best;
    for (int h = TPB / 2; h > 0; h /= 2) {
        __syncthreads();
        if (me < h) {
            part[me] = fmaxf(part[me], part[me + h]);
        }
    }
    float mx = part[0];  // @bug
    __syncthreads();
    float total = 0.0f;
    for (int c = me; c < cols; c += TPB) {
        total += expf(row[c] - mx);
    }
    part[me] = total;
    for (int h = TPB / 2; h > 0; h /= 2) {
        __syncthreads();
        if (me < h) {
            part[me] += part[me + h];
        }
    }
    __syncthreads();
    total = part[0];
    for (int c = me; c < cols; c += TPB) {
        out[blockIdx.x * cols + c] = expf(row[c] - mx) / total;
    }
}
