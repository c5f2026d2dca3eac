// expect: fail
// kind: uninitialized-read
// line: @bug
// help-has: / 2
// help-not: halo
// why: sums the warp totals with a halving loop that starts at the block size, past the TPB / 32 totals written.
// Puzzle 43 · Cooperative groups block sum
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void block_sum_cg(float* out, const float* a, int n) {
    __shared__ float sums[2 * (TPB / 32)];
    cg::thread_block blk = cg::this_thread_block();
    cg::thread_block_tile<32> w = cg::tiled_partition<32>(blk);
    int gi = blockIdx.x * blockDim.x + threadIdx.x;
    float x = gi < n ? a[gi] : 0.0f;
    float part = cg::reduce(w, x, cg::plus<float>());
    if (w.thread_rank() == 0) sums[w.meta_group_rank()] = part;
    blk.sync();
    int t = threadIdx.x;
    for (int span = TPB / 32; span > 0; span /= 2) {
        if (t < span) sums[t] += sums[t + span];  // @bug
        blk.sync();
    }
    if (t == 0) out[blockIdx.x] = sums[0];
}
