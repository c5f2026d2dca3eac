// expect: fail
// kind: over-budget
// counter: shared_reads
// why: reduces each warp with cg::reduce, then thread 0 adds the warp totals in a loop.
// help-has: cg::reduce | tree | shuffle | one warp
// help-not: guard the access
// Puzzle 43 · Block sum with cooperative groups: out[j] = the sum of block j's TPB elements.
// Check with `gpuzzle run 43`; stuck? `gpuzzle hint 43`.
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
    if (warp.thread_rank() == 0) {
        warp_sums[warp.meta_group_rank()] = warp_total;
    }
    block.sync();
    if (block.thread_rank() == 0) {
        float total = 0.0f;
        for (int w = 0; w < TPB / 32; w++) {
            total += warp_sums[w];
        }
        out[blockIdx.x] = total;
    }
}
