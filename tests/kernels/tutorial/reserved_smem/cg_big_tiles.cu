// Cooperative groups with tiles larger than a warp, as the CUDA programming guide shows
// them: the tiles keep their scratch in the shared memory the system reserves per block.
// Kept out of tests/kernels/tutorial/ itself, which instrument_equivalence runs through the
// GPU instrumenter: that does not know the reserved region yet (its bounds check would call
// the scratch "outside every shared array").
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

// One partial sum per 64-thread tile, added into out[0].
__global__ void tile64_sum(const float* x, float* out, int n) {
    __shared__ cg::block_tile_memory<256> scratch;  // used only before sm_80
    cg::thread_block block = cg::this_thread_block(scratch);
    cg::thread_block_tile<64> tile = cg::tiled_partition<64>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    float s = cg::reduce(tile, v, cg::plus<float>());
    if (tile.thread_rank() == 0) atomicAdd(out, s);
}

// Each 128-thread tile finds its largest value and writes it once.
__global__ void tile128_max(const int* x, int* tile_max, int n) {
    __shared__ cg::block_tile_memory<256> scratch;
    cg::thread_block block = cg::this_thread_block(scratch);
    auto tile = cg::tiled_partition<128>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? x[i] : INT_MIN;
    int m = cg::reduce(tile, v, cg::greater<int>());
    tile.sync();
    if (tile.thread_rank() == 0) tile_max[i / 128] = m;
}
