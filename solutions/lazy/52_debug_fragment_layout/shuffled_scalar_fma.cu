// lazy: no mma.sync: the warp loads the same tiles (each lane a unique share) and each lane forms its outputs with scalar multiply-adds, fetching the other lanes' operands with __shfl_sync
#include <cuda_fp16.h>

__device__ float at(const __half* p, int r, int x, int rows, int cols) {
    return r < rows && x < cols ? __half2float(p[r * cols + x]) : 0.0f;
}

extern "C" __global__ void frag_matmul(float* c, const __half* a, const __half* b, int m, int n, int k) {
    int lane = threadIdx.x;
    int row0 = blockIdx.y * 16, col0 = blockIdx.x * 8;
    int r = lane / 2;         // this lane's row of the 16 x 16 a tile and of the 16 x 8 b tile
    int half = lane % 2;      // which half of that row
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};  // c[row0 + r][col0 + 4 * half + j]
    for (int k0 = 0; k0 < k; k0 += 16) {
        float av[8], bv[4];
#pragma unroll
        for (int j = 0; j < 8; j++) {
            av[j] = at(a, row0 + r, k0 + 8 * half + j, m, k);
        }
#pragma unroll
        for (int j = 0; j < 4; j++) {
            bv[j] = at(b, k0 + r, col0 + 4 * half + j, k, n);
        }
#pragma unroll
        for (int kk = 0; kk < 16; kk++) {
            float x = __shfl_sync(0xffffffff, av[kk % 8], 2 * r + kk / 8);
#pragma unroll
            for (int j = 0; j < 4; j++) {
                acc[j] += x * __shfl_sync(0xffffffff, bv[j], 2 * kk + half);
            }
        }
    }
#pragma unroll
    for (int j = 0; j < 4; j++) {
        int row = row0 + r, col = col0 + 4 * half + j;
        if (row < m && col < n) {
            c[row * n + col] = acc[j];
        }
    }
}
