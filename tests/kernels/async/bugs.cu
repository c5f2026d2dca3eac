// Planted async-copy bugs, one per kernel; the line each must be reported at is marked BUG.
#include <cuda_pipeline.h>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/pipeline>
#include <cuda/barrier>
namespace cg = cooperative_groups;
#define T 64

__global__ void missing_wait(const float* in, float* out) {
    __shared__ float tile[T];
    int j = threadIdx.x;
    __pipeline_memcpy_async(&tile[j], &in[blockIdx.x * T + j], sizeof(float));
    __pipeline_commit();
    __syncthreads();
    out[blockIdx.x * T + j] = tile[T - 1 - j]; // BUG missing_wait
}

__global__ void lax_wait(const float* in, float* out) {
    __shared__ float tile[T];
    int j = threadIdx.x;
    __pipeline_memcpy_async(&tile[j], &in[blockIdx.x * T + j], sizeof(float));
    __pipeline_commit();
    __pipeline_wait_prior(1);
    __syncthreads();
    out[blockIdx.x * T + j] = tile[j]; // BUG lax_wait
}

__global__ void no_barrier_after_wait(const float* in, float* out) {
    __shared__ float tile[T];
    int j = threadIdx.x;
    __pipeline_memcpy_async(&tile[j], &in[blockIdx.x * T + j], sizeof(float));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    out[blockIdx.x * T + j] = tile[(j + 1) % T]; // BUG no_barrier_after_wait
}

__global__ void overwrite_destination(const float* in, float* out) {
    __shared__ float tile[T];
    int j = threadIdx.x;
    __pipeline_memcpy_async(&tile[j], &in[blockIdx.x * T + j], sizeof(float));
    tile[j] = 0.0f; // BUG overwrite_destination
    __pipeline_commit();
    __pipeline_wait_prior(0);
    out[blockIdx.x * T + j] = tile[j];
}

__global__ void overwrite_source(float* in, float* out) {
    __shared__ float tile[T];
    int j = threadIdx.x;
    __pipeline_memcpy_async(&tile[j], &in[blockIdx.x * T + j], sizeof(float));
    __pipeline_commit();
    in[blockIdx.x * T + j] = -1.0f; // BUG overwrite_source
    __pipeline_wait_prior(0);
    out[blockIdx.x * T + j] = tile[j];
}

__global__ void misaligned_copy(const float* in, float* out) {
    __shared__ __align__(16) float tile[T * 4 + 4];
    int j = threadIdx.x;
    unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(&tile[4 * j + 1]));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(in + 4 * j) : "memory"); // BUG misaligned_copy
    asm volatile("cp.async.wait_all;" ::: "memory");
    out[j] = tile[4 * j + 1];
}

__global__ void copy_past_the_end(const float* in, float* out, int n) {
    __shared__ float tile[T];
    int i = blockIdx.x * T + threadIdx.x;
    __pipeline_memcpy_async(&tile[threadIdx.x], &in[i], sizeof(float)); // BUG copy_past_the_end
    __pipeline_commit();
    __pipeline_wait_prior(0);
    if (i < n) out[i] = tile[threadIdx.x];
}

__global__ void named_count_too_high(const float* in, float* out) {
    __shared__ float buf[32];
    int lane = threadIdx.x % 32;
    if (threadIdx.x < 32) {
        buf[lane] = in[lane];
        asm volatile("bar.arrive 1, 64;" ::: "memory");
    } else {
        asm volatile("bar.sync 1, 96;" ::: "memory"); // BUG named_count_too_high
        out[lane] = buf[31 - lane];
    }
}

// 40 producer threads and 40 consumers: a count of 80, which is no whole number of warps.
__global__ void named_count_not_warps(const float* in, float* out) {
    __shared__ float buf[40];
    int i = threadIdx.x;
    if (i < 40) {
        buf[i] = in[i];
        asm volatile("bar.arrive 1, 80;" ::: "memory");
    } else if (i < 80) {
        asm volatile("bar.sync 1, 80;" ::: "memory"); // BUG named_count_not_warps
        out[i - 40] = buf[79 - i];
    }
}

__global__ void cg_missing_wait(const float* in, float* out) {
    __shared__ float tile[T];
    cg::thread_block block = cg::this_thread_block();
    cg::memcpy_async(block, tile, in + blockIdx.x * T, sizeof(float) * T);
    block.sync();
    out[blockIdx.x * T + threadIdx.x] = tile[T - 1 - threadIdx.x]; // BUG cg_missing_wait
}

__global__ void pipeline_missing_wait(const float* in, float* out) {
    __shared__ float tile[T];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 1> state;
    auto block = cg::this_thread_block();
    auto pipe = cuda::make_pipeline(block, &state);
    pipe.producer_acquire();
    cuda::memcpy_async(block, tile, in + blockIdx.x * T, sizeof(float) * T, pipe);
    pipe.producer_commit();
    block.sync();
    out[blockIdx.x * T + threadIdx.x] = tile[T - 1 - threadIdx.x]; // BUG pipeline_missing_wait
    pipe.consumer_release();
}

__global__ void barrier_arrive_without_wait(const float* in, float* out) {
    __shared__ float tile[T];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync();
    cuda::memcpy_async(block, tile, in + blockIdx.x * T, sizeof(float) * T, bar);
    (void)bar.arrive();
    block.sync();
    out[blockIdx.x * T + threadIdx.x] = tile[T - 1 - threadIdx.x]; // BUG barrier_arrive_without_wait
}

__global__ void barrier_count_too_high(const float* in, float* out) {
    __shared__ float tile[T];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size() + 1);
    block.sync();
    cuda::memcpy_async(block, tile, in + blockIdx.x * T, sizeof(float) * T, bar);
    bar.arrive_and_wait(); // BUG barrier_count_too_high
    out[blockIdx.x * T + threadIdx.x] = tile[T - 1 - threadIdx.x];
}
