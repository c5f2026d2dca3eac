#pragma once
// Shared by the tutorial kernels: the usual 1D global index.
__device__ __forceinline__ int global_index() {
    return blockIdx.x * blockDim.x + threadIdx.x;
}
