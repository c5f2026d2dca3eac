// lazy: cg::reduce per warp, then each warp's lane 0 adds its total to out[blockIdx.x] with an atomic
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void block_sum_cg(float* out, const float* a, int n) {
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float warp_total = cg::reduce(warp, i < n ? a[i] : 0.0f, cg::plus<float>());
    if (warp.thread_rank() == 0) {
        atomicAdd(&out[blockIdx.x], warp_total);
    }
}
