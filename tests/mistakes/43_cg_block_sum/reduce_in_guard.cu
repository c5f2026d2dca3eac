// expect: fail
// kind: warp-sync
// line: @bug
// help-has: outside | every lane | every thread
// help-not: __syncthreads()
// why: reduces only in the threads that have an element: in a partly full warp the others never come.
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
    float warp_total = 0.0f;
    if (i < n) {
        warp_total = cg::reduce(warp, a[i], cg::plus<float>());  // @bug
    }
    if (warp.thread_rank() == 0) {
        warp_sums[warp.meta_group_rank()] = warp_total;
    }
    block.sync();
    if (warp.meta_group_rank() == 0) {
        int lane = warp.thread_rank();
        float w = lane < warp.meta_group_size() ? warp_sums[lane] : 0.0f;
        float total = cg::reduce(warp, w, cg::plus<float>());
        if (lane == 0) {
            out[blockIdx.x] = total;
        }
    }
}
