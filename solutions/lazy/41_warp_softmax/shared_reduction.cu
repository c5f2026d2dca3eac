// lazy: the warp reduces its maximum and sum through shared memory instead of shuffles
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
