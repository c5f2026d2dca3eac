// Puzzle 43 · Block sum with cooperative groups: out[j] = the sum of block j's TPB elements.
// Check with `gpuzzle run 43`; stuck? `gpuzzle hint 43`.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void block_sum_cg(float* out, const float* a, int n) {
    // FILL ME IN (roughly 14 lines). A start, to uncomment:
    //     __shared__ float warp_sums[TPB / 32];  // one total per warp of the block
    //     cg::thread_block block = cg::this_thread_block();
    //     cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    //     int i = blockIdx.x * blockDim.x + threadIdx.x;
}
