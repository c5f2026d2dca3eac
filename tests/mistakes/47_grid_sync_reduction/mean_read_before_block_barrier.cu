// expect: fail
// kind: shared-race
// line: @bug
// help-has: __syncthreads()
// help-not: grid.sync() on line
// why: thread 0 computes the mean after the grid sync, but the others read it with no block barrier in between.
// Puzzle 47 · Grid sync reduction
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ float partials[1024];

extern "C" __global__ void center(float* out, const float* a, int size) {
    cg::grid_group g = cg::this_grid();
    __shared__ float tree[TPB];
    __shared__ float avg;
    int tid = threadIdx.x;
    int step = gridDim.x * blockDim.x;
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + tid; i < size; i += step) acc += a[i];
    tree[tid] = acc;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (tid < h) tree[tid] += tree[tid + h];
        __syncthreads();
    }
    if (tid == 0) partials[blockIdx.x] = tree[0];
    g.sync();
    if (tid == 0) {
        float tot = 0.0f;
        for (int b = 0; b < gridDim.x; b++) tot += partials[b];
        avg = tot / size;
    }
    for (int i = blockIdx.x * blockDim.x + tid; i < size; i += step) out[i] = a[i] - avg;  // @bug
}
