// expect: fail
// kind: shared-race
// line: @bug
// help-has: meta_group_rank
// help-not: atomicAdd
// help-not: __syncthreads()
// why: each warp's leader stores its total at totals[tile.thread_rank()], which is 0 for every
// why: leader: all warps write the same slot.
// Puzzle 43 · Block sum with cooperative groups: out[j] = the sum of block j's TPB elements.
// Check with `gpuzzle run 43`; stuck? `gpuzzle hint 43`.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void block_sum_cg(float* out, const float* a, int n) {
    __shared__ float totals[TPB / 32];
    cg::thread_block tb = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(tb);
    int gi = blockIdx.x * blockDim.x + threadIdx.x;
    float x = gi < n ? a[gi] : 0.0f;
    float part = cg::reduce(tile, x, cg::plus<float>());
    if (tile.thread_rank() == 0) {
        totals[tile.thread_rank()] = part;  // @bug
    }
    tb.sync();
    if (tile.meta_group_rank() == 0) {
        int r = tile.thread_rank();
        float y = r < tile.meta_group_size() ? totals[r] : 0.0f;
        float all = cg::reduce(tile, y, cg::plus<float>());
        if (r == 0) {
            out[blockIdx.x] = all;
        }
    }
}
