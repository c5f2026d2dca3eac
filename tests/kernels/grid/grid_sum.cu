// A single-kernel reduction with two grid-wide syncs (tests/exec_grid.rs): each block sums
// its grid-stride share, block 0 adds the partial sums after the first sync, and after the
// second every thread divides its elements by the total.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void grid_sum(const float* in, float* partial, float* total, float* share, int n) {
    cg::grid_group grid = cg::this_grid();
    __shared__ float s[256];
    int t = threadIdx.x;
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) acc += in[i];
    s[t] = acc;
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = s[0];
    grid.sync(); // @first_sync
    if (blockIdx.x == 0 && t == 0) {
        float sum = 0.0f;
        for (int b = 0; b < gridDim.x; ++b) sum += partial[b];
        total[0] = sum;
    }
    grid.sync();
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) share[i] = in[i] / total[0];
}

// The same first phase, but the last block returns before the sync: the others wait forever.
extern "C" __global__ void grid_sum_early_return(const float* in, float* partial, float* total, int n) {
    cg::grid_group grid = cg::this_grid();
    if (blockIdx.x == gridDim.x - 1) return;
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) acc += in[i];
    atomicAdd(&partial[blockIdx.x], acc);
    grid.sync(); // @dead_sync
    if (blockIdx.x == 0 && threadIdx.x == 0) total[0] = partial[0];
}

// Block 0 reads block 1's value before the grid sync as well as after it: the first read races.
extern "C" __global__ void grid_race_before_sync(float* partial, float* out) {
    cg::grid_group grid = cg::this_grid();
    if (threadIdx.x == 0) partial[blockIdx.x] = blockIdx.x + 1.0f; // @race_write
    if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = partial[1]; // @race_read
    grid.sync();
    if (threadIdx.x == 0 && blockIdx.x == 0) out[1] = partial[1];
}
