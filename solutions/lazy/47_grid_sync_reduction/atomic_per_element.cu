// lazy: every element atomically added into one global sum, then a grid sync before the outputs
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ float total;

extern "C" __global__ void center(float* out, const float* a, int size) {
    cg::grid_group grid = cg::this_grid();
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < size; i += stride) {
        atomicAdd(&total, a[i]);
    }
    grid.sync();
    float mean = total / size;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < size; i += stride) {
        out[i] = a[i] - mean;
    }
}
