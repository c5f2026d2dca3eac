// atomicAdd on halves: __half (atom.add.noftz.f16), __half2 (atom.add.noftz.f16x2); on sm_80
// the bfloat16 ones are compare-and-swap loops (atom.cas.b16 / .b32). Every thread adds its
// element into slot i % slots.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void half_atomic_add(const __half* x, const __half2* x2, const __nv_bfloat16* b,
                                const __nv_bfloat162* b2, __half* sum, __half2* sum2,
                                __nv_bfloat16* bsum, __nv_bfloat162* bsum2, int n, int slots) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&sum[i % slots], x[i]);
        atomicAdd(&sum2[i % slots], x2[i]);
        atomicAdd(&bsum[i % slots], b[i]);
        atomicAdd(&bsum2[i % slots], b2[i]);
    }
}

// The same into shared memory first, then one thread per slot to global.
__global__ void half_atomic_shared(const __half2* x2, __half2* sum2, int n) {
    __shared__ __half2 acc[4];
    if (threadIdx.x < 4) acc[threadIdx.x] = __float2half2_rn(0.0f);
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&acc[i % 4], x2[i]);
    __syncthreads();
    if (threadIdx.x < 4) atomicAdd(&sum2[threadIdx.x], acc[threadIdx.x]);
}
