// Puzzle 39 · Online softmax: the softmax of puzzle 38 with the maximum and the sum found in one
// pass. Check with `gpuzzle run 39`; stuck? `gpuzzle hint 39`.
#include <cfloat>

extern "C" __global__ void softmax(float* out, const float* x, int rows, int cols) {
    // FILL ME IN (roughly 30 lines). A start:
    //     __shared__ float red_m[TPB], red_d[TPB];   // the threads' running (max, sum) pairs
    //     const float* xr = x + blockIdx.x * cols;
    //     float m = -FLT_MAX, d = 0.0f;
}
