// expect: pass
// why: __syncthreads() for block.sync(), the tile from this_thread_block() inline, and every lane of warp 0 writing only from lane 0.
// Puzzle 43 · Block sum with cooperative groups: out[j] = the sum of block j's TPB elements.
// Check with `gpuzzle run 43`; stuck? `gpuzzle hint 43`.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void block_sum_cg(float* out, const float* a, int n) {
    __shared__ float warp_sums[TPB / 32];
    auto warp = cg::tiled_partition<32>(cg::this_thread_block());
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float s = cg::reduce(warp, i < n ? a[i] : 0.0f, cg::plus<float>());
    if (warp.thread_rank() == 0) {
        warp_sums[threadIdx.x / 32] = s;
    }
    __syncthreads();
    if (threadIdx.x < 32) {
        s = cg::reduce(warp, threadIdx.x < TPB / 32 ? warp_sums[threadIdx.x] : 0.0f, cg::plus<float>());
        if (threadIdx.x == 0) {
            out[blockIdx.x] = s;
        }
    }
}
