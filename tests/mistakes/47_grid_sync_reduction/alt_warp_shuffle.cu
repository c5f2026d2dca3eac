// expect: pass
// why: warp shuffle sums, then the four warp totals through shared memory, then the grid sync.
// Puzzle 47 · Grid-synchronised reduction: out[i] = a[i] - mean(a), in ONE cooperative launch.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ float block_sums[1024];

extern "C" __global__ void center(float* out, const float* a, int size) {
    cg::grid_group grid = cg::this_grid();
    __shared__ float warp_sums[TPB / 32];
    __shared__ float mean;
    int t = threadIdx.x;
    int stride = gridDim.x * blockDim.x;
    float sum = 0.0f;
    for (int i = blockIdx.x * blockDim.x + t; i < size; i += stride) {
        sum += a[i];
    }
    for (int o = 16; o > 0; o >>= 1) {
        sum += __shfl_down_sync(0xffffffff, sum, o);
    }
    if (t % 32 == 0) {
        warp_sums[t / 32] = sum;
    }
    __syncthreads();
    if (t == 0) {
        float s = 0.0f;
        for (int w = 0; w < TPB / 32; w++) {
            s += warp_sums[w];
        }
        block_sums[blockIdx.x] = s;
    }
    grid.sync();
    if (t == 0) {
        float total = 0.0f;
        for (int b = 0; b < gridDim.x; b++) {
            total += block_sums[b];
        }
        mean = total / size;
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + t; i < size; i += stride) {
        out[i] = a[i] - mean;
    }
}
