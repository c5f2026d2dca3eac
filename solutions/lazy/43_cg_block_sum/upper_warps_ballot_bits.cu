// lazy: the lower half of the block's warps reduce with cg::reduce, the upper half sum whole numbers bit by bit with tile.ballot
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void block_sum_cg(float* out, const float* a, int n) {
    __shared__ float totals[TPB / 32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    float x = g < n ? a[g] : 0.0f;
    float mine;
    if (tile.meta_group_rank() * 2 < tile.meta_group_size()) {
        mine = cg::reduce(tile, x, cg::plus<float>());
    } else {
        int biased = g < n ? (int)x + 4096 : 0;
        int acc = 0;
        for (int bit = 0; bit < 16; bit++) {
            acc += __popc(tile.ballot((biased >> bit) & 1)) << bit;
        }
        acc -= 4096 * __popc(tile.ballot(g < n));
        mine = (float)acc;
    }
    if (tile.thread_rank() == 0) totals[tile.meta_group_rank()] = mine;
    block.sync();
    if (tile.meta_group_rank() == 0) {
        float w = tile.thread_rank() < tile.meta_group_size() ? totals[tile.thread_rank()] : 0.0f;
        float s = cg::reduce(tile, w, cg::plus<float>());
        if (tile.thread_rank() == 0) out[blockIdx.x] = s;
    }
}
