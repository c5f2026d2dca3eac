// cuda::memcpy_async completing on a cuda::barrier, one tile per phase: out = tile reversed - 1.
#include <cuda/barrier>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
using barrier = cuda::barrier<cuda::thread_scope_block>;
#define T 128
#define TILES 3
__global__ void reverse_minus_one(const float* in, float* out) {
    __shared__ float tile[T];
    __shared__ barrier bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync();
    for (int t = 0; t < TILES; ++t) {
        int base = (blockIdx.x * TILES + t) * T;
        cuda::memcpy_async(block, tile, in + base, sizeof(float) * T, bar);
        bar.arrive_and_wait();
        out[base + threadIdx.x] = tile[T - 1 - threadIdx.x] - 1.0f;
        block.sync();
    }
}
