// expect: fail
// kind: over-budget
// counter: global_atomics
// why: each block atomically adds its total into block_sums[0] and reads it after the grid
// why: sync: right, but the puzzle's lesson is the sync without atomics (budget 0).
// help-has: grid.sync | without atomic | block_sums[blockIdx
// help-not: guard the access
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
        atomicAdd(&block_sums[0], cache[0]);
    }
    grid.sync();
    if (t == 0) {
        mean = block_sums[0] / size;
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + t; i < size; i += stride) {
        out[i] = a[i] - mean;
    }
}
