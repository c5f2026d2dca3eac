// Double-buffered copies with the pipeline primitives: each block walks its tiles of T
// floats, copying tile t+1 while it reverses tile t (out[base + j] = 2 * in[base + T-1-j]).
#include <cuda_pipeline.h>
#define T 64
__global__ void reverse_tiles(const float* in, float* out, int tiles_per_block) {
    __shared__ float buf[2][T];
    int j = threadIdx.x;
    int first = blockIdx.x * tiles_per_block;
    __pipeline_memcpy_async(&buf[0][j], &in[first * T + j], sizeof(float));
    __pipeline_commit();
    for (int t = 0; t < tiles_per_block; ++t) {
        if (t + 1 < tiles_per_block) {
            __pipeline_memcpy_async(&buf[(t + 1) % 2][j], &in[(first + t + 1) * T + j], sizeof(float));
        }
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        out[(first + t) * T + j] = 2.0f * buf[t % 2][T - 1 - j];
        __syncthreads();
    }
}
