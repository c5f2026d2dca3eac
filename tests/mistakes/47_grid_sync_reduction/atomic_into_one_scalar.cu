// expect: fail
// kind: over-budget
// counter: global_atomics
// why: sums each warp with shuffles and lets lane 0 of every warp add into one __device__
// why: scalar before the grid sync: right, but the lesson is a slot per block and no atomics.
// help-has: blockIdx.x] | slot per block
// help-not: guard the access
// Puzzle 47 · Grid-synchronised reduction: out[i] = a[i] - mean(a), in ONE cooperative launch.
#include <cooperative_groups.h>

__device__ float running_total;

extern "C" __global__ void center(float* out, const float* a, int size) {
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    float mine = 0.0f;
    for (int j = tid; j < size; j += gridDim.x * blockDim.x) {
        mine += a[j];
    }
    for (int off = 16; off > 0; off /= 2) {
        mine += __shfl_down_sync(0xffffffff, mine, off);
    }
    if (threadIdx.x % 32 == 0) {
        atomicAdd(&running_total, mine);
    }
    cooperative_groups::this_grid().sync();
    float mean = running_total / size;
    for (int j = tid; j < size; j += gridDim.x * blockDim.x) {
        out[j] = a[j] - mean;
    }
}
