// A two-stage block-scope cuda::pipeline: stage s copies tile s of 128 floats with
// cuda::memcpy_async; the consumer scales it by 3 (tile s of the block's STAGES*2 tiles).
#include <cuda/pipeline>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
#define T 128
#define STAGES 2
#define TILES 4
__global__ void scale_tiles(const float* in, float* out) {
    __shared__ float tile[STAGES][T];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
    auto block = cg::this_thread_block();
    auto pipe = cuda::make_pipeline(block, &state);
    const float* src = in + blockIdx.x * TILES * T;
    float* dst = out + blockIdx.x * TILES * T;
    int fetched = 0;
    for (int t = 0; t < TILES; ++t) {
        for (; fetched < TILES && fetched < t + STAGES; ++fetched) {
            pipe.producer_acquire();
            cuda::memcpy_async(block, tile[fetched % STAGES], src + fetched * T, sizeof(float) * T, pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        dst[t * T + threadIdx.x] = 3.0f * tile[t % STAGES][T - 1 - threadIdx.x];
        pipe.consumer_release();
    }
}
