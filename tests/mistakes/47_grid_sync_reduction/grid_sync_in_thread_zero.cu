// expect: fail
// kind: barrier-divergence
// line: @bug
// help-has: grid.sync()
// help-has: every thread | all threads | outside
// help-not: __syncthreads() on line
// why: calls grid.sync() only in thread 0 of each block, after it stores the block's total.
// Puzzle 47 · Grid-synchronised reduction: out[i] = a[i] - mean(a), in ONE cooperative launch.
// Check with `gpuzzle run 47`; stuck? `gpuzzle hint 47`.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ float partials[1024];

extern "C" __global__ void center(float* out, const float* a, int size) {
    cg::grid_group grid = cg::this_grid();
    __shared__ float buf[TPB];
    __shared__ float avg;
    int me = threadIdx.x;
    int step = gridDim.x * blockDim.x;
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + me; i < size; i += step) {
        acc += a[i];
    }
    buf[me] = acc;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h >>= 1) {
        if (me < h) {
            buf[me] += buf[me + h];
        }
        __syncthreads();
    }
    if (me == 0) {
        partials[blockIdx.x] = buf[0];
        grid.sync();  // @bug
        float total = 0.0f;
        for (int b = 0; b < gridDim.x; b++) {
            total += partials[b];
        }
        avg = total / size;
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + me; i < size; i += step) {
        out[i] = a[i] - avg;
    }
}
