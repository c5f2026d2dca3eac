// Puzzle 38 · Numerically stable softmax: out[r][c] = exp(x[r][c] - max_r) / sum_k exp(x[r][k] - max_r),
// one block per row. Check with `gpuzzle run 38`; stuck? `gpuzzle hint 38`.
#include <cfloat>

extern "C" __global__ void softmax(float* out, const float* x, int rows, int cols) {
    // FILL ME IN (roughly 30 lines). A start:
    //     __shared__ float red[TPB];         // the threads' partial maxima, then sums
    //     const float* xr = x + blockIdx.x * cols;
    //     float m = -FLT_MAX;
    //     for (int c = threadIdx.x; c < cols; c += TPB) m = fmaxf(m, xr[c]);
}
