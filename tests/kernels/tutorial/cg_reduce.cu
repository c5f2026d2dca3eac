// Written the way CUDA tutorials write it: host headers included out of
// habit, cooperative groups for the warp-level reduction.
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>
#include <device_launch_parameters.h>
#include <climits>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

// Sum of x[0..n) into *out: cg::reduce per 32-thread tile, one atomicAdd per tile.
__global__ void reduce_tiles(const float* x, float* out, int n) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    float sum = cg::reduce(tile, v, cg::plus<float>());
    if (tile.thread_rank() == 0) {
        atomicAdd(out, sum);
    }
}

// Per-block maximum: shfl_down inside each warp, warp results through shared
// memory, block.sync() between the two steps.
__global__ void block_max(const int* x, int* out, int n) {
    __shared__ int warp_max[32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? x[i] : INT_MIN;
    for (int offset = warp.size() / 2; offset > 0; offset /= 2) {
        v = max(v, warp.shfl_down(v, offset));
    }
    if (warp.thread_rank() == 0) {
        warp_max[warp.meta_group_rank()] = v;
    }
    block.sync();
    if (block.thread_rank() == 0) {
        int m = warp_max[0];
        for (int w = 1; w < warp.meta_group_size(); ++w) {
            m = max(m, warp_max[w]);
        }
        out[blockIdx.x] = m;
    }
}
