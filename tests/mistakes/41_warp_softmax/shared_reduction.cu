// expect: fail
// kind: over-budget
// counter: shared_writes
// why: the row in registers, but the warp's maximum and sum go through a shared array.
// help-has: shuffle | __shfl_xor_sync | butterfly
// help-not: guard the access
// Puzzle 41 · Warp-per-row fused softmax: one warp per row, the row in registers, shuffles for
// the maximum and the sum. Check with `gpuzzle run 41`; stuck? `gpuzzle hint 41`.
#include <cfloat>

extern "C" __global__ void softmax_rows(float* out, const float* x, int rows, int cols) {
    __shared__ float red[128];
    int row = blockIdx.x * 4 + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    float* mine = red + (threadIdx.x / 32) * 32;
    bool active = row < rows;
    float v[PER_LANE];
    float m = -FLT_MAX;
    for (int k = 0; k < PER_LANE; k++) {
        int c = lane + 32 * k;
        v[k] = active && c < cols ? x[row * cols + c] : -FLT_MAX;
        m = fmaxf(m, v[k]);
    }
    mine[lane] = m;
    __syncwarp();
    m = -FLT_MAX;
    for (int l = 0; l < 32; l++) {
        m = fmaxf(m, mine[l]);
    }
    __syncwarp();
    float sum = 0.0f;
    for (int k = 0; k < PER_LANE; k++) {
        v[k] = lane + 32 * k < cols ? expf(v[k] - m) : 0.0f;
        sum += v[k];
    }
    mine[lane] = sum;
    __syncwarp();
    sum = 0.0f;
    for (int l = 0; l < 32; l++) {
        sum += mine[l];
    }
    for (int k = 0; k < PER_LANE; k++) {
        int c = lane + 32 * k;
        if (active && c < cols) {
            out[row * cols + c] = v[k] / sum;
        }
    }
}
