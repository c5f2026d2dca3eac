// expect: fail
// kind: wrong-output
// help-has: total / gridDim.x | / size
// why: held-out (stop 44): the grand total is divided by the number of blocks instead of the number of elements
// Puzzle 47 · Grid-synchronised reduction: out[i] = a[i] - mean(a), in ONE cooperative launch.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// One total per block, written before the grid sync and read after it.
__device__ float block_sums[1024];

extern "C" __global__ void center(float* out, const float* a, int size) {
    cg::grid_group grid = cg::this_grid();
    __shared__ float cache[TPB];
    __shared__ float mean;
    int t = threadIdx.x;
    int stride = gridDim.x * blockDim.x;
    float sum = 0.0f;
    for (int i = blockIdx.x * blockDim.x + t; i < size; i += stride) {
        sum += a[i];
    }
    cache[t] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            cache[t] += cache[t + s];
        }
        __syncthreads();
    }
    if (t == 0) {
        block_sums[blockIdx.x] = cache[0];
    }
    grid.sync();
    if (t == 0) {
        float total = 0.0f;
        for (int b = 0; b < gridDim.x; b++) {
            total += block_sums[b];
        }
        mean = total / gridDim.x;
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + t; i < size; i += stride) {
        out[i] = a[i] - mean;
    }
}
