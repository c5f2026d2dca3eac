// expect: fail
// kind: out-of-bounds
// line: @mark
// help-has: out[blockIdx.x] | blockIdx.x
// why: held-out (stop 44): the block total is stored at the thread global index i, past the per-block output
// Puzzle 43 · Block sum with cooperative groups: out[j] = the sum of block j's TPB elements.
// the warp totals through shared memory, a tile reduce of the totals).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void block_sum_cg(float* out, const float* a, int n) {
    __shared__ float warp_sums[TPB / 32];  // one total per warp of the block
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    // Every thread of the tile takes part, with 0 past the end of a.
    float v = i < n ? a[i] : 0.0f;
    float warp_total = cg::reduce(warp, v, cg::plus<float>());
    if (warp.thread_rank() == 0) {
        warp_sums[warp.meta_group_rank()] = warp_total;
    }
    block.sync();  // the first warp reads every warp's total
    if (warp.meta_group_rank() == 0) {
        int lane = warp.thread_rank();
        float w = lane < warp.meta_group_size() ? warp_sums[lane] : 0.0f;
        float total = cg::reduce(warp, w, cg::plus<float>());
        if (lane == 0) {
            out[i] = total;  // @mark
        }
    }
}
