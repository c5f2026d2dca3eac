// expect: fail
// kind: wrong-output
// help-has: gridDim.x * blockDim.x | blockDim.x * gridDim.x | whole grid | every thread of the grid
// help-not: grid.sync()
// why: the first pass strides by blockDim.x, so every block adds up the whole array: each block
// why: total is the grand total and the mean comes out gridDim.x times too big. The first pass
// why: needs the grid stride, as the second pass has.
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
    for (int i = blockIdx.x * blockDim.x + t; i < size; i += blockDim.x) {  // @bug
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
        mean = total / size;
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + t; i < size; i += stride) {
        out[i] = a[i] - mean;
    }
}
