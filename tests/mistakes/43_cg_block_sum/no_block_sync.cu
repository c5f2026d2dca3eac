// expect: fail
// kind: shared-race
// line: @bug
// help-has: block.sync() | __syncthreads()
// help-not: warp.sync()
// why: the first warp reads every warp's total right after the warp leaders store them, with no
// why: block-wide barrier between: the other warps' totals are not there yet.
// Puzzle 43 · Block sum with cooperative groups: out[j] = the sum of block j's TPB elements.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void block_sum_cg(float* out, const float* a, int n) {
    __shared__ float totals[TPB / 32];
    cg::thread_block blk = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(blk);
    int gi = blockIdx.x * blockDim.x + threadIdx.x;
    float v = gi < n ? a[gi] : 0.0f;
    float part = cg::reduce(tile, v, cg::plus<float>());
    if (tile.thread_rank() == 0) {
        totals[tile.meta_group_rank()] = part;
    }
    if (tile.meta_group_rank() == 0) {
        unsigned r = tile.thread_rank();
        float w = r < tile.meta_group_size() ? totals[r] : 0.0f;  // @bug
        float sum = cg::reduce(tile, w, cg::plus<float>());
        if (r == 0) {
            out[blockIdx.x] = sum;
        }
    }
}
