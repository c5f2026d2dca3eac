// Puzzle 41 · Warp-per-row fused softmax: one warp per row, the row in registers, shuffles for
// the maximum and the sum. Check with `gpuzzle run 41`; stuck? `gpuzzle hint 41`.
#include <cfloat>

extern "C" __global__ void softmax_rows(float* out, const float* x, int rows, int cols) {
    // FILL ME IN (roughly 25 lines). A start:
    //     int row = blockIdx.x * 4 + threadIdx.x / 32;   // this warp's row
    //     int lane = threadIdx.x % 32;
    //     float v[PER_LANE];                             // columns lane, lane + 32, ...
}
