// lazy: cg::reduce per warp, then each warp's lane 0 adds its total into one shared float with atomicAdd instead of a second tile reduce
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void block_sum_cg(float* out, const float* a, int n) {
    __shared__ float total;
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    if (threadIdx.x == 0) {
        total = 0.0f;
    }
    block.sync();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float warp_total = cg::reduce(warp, i < n ? a[i] : 0.0f, cg::plus<float>());
    if (warp.thread_rank() == 0) {
        atomicAdd(&total, warp_total);
    }
    block.sync();
    if (threadIdx.x == 0) {
        out[blockIdx.x] = total;
    }
}
