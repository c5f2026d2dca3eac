// lazy: the double buffer with cp.async, but every thread copies single 4-byte floats (one of a, one of b per step) instead of 16-byte pieces
#include <cuda_pipeline.h>
extern "C" __global__ void matmul_async(float* out, const float* a, const float* b, int M, int K, int N) {
    __shared__ float a_tile[2][TPB][TPB];
    __shared__ float b_tile[2][TPB][TPB];
    int tx = threadIdx.x, ty = threadIdx.y;
    int col = blockIdx.x * TPB + tx;
    int row = blockIdx.y * TPB + ty;
    int steps = (K + TPB - 1) / TPB;
    float sum = 0.0f;
    for (int s = 0; s <= steps; s++) {
        if (s < steps) {
            int t0 = s * TPB;
            bool ia = row < M && t0 + tx < K;
            __pipeline_memcpy_async(&a_tile[s % 2][ty][tx], ia ? a + row * K + t0 + tx : a, 4, ia ? 0 : 4);
            bool ib = t0 + ty < K && col < N;
            __pipeline_memcpy_async(&b_tile[s % 2][ty][tx], ib ? b + (t0 + ty) * N + col : b, 4, ib ? 0 : 4);
        }
        __pipeline_commit();
        if (s == 0) continue;
        __pipeline_wait_prior(1);
        __syncthreads();
        int p = (s - 1) % 2;
        for (int k = 0; k < TPB; k++) sum += a_tile[p][ty][k] * b_tile[p][k][tx];
        __syncthreads();
    }
    if (row < M && col < N) out[row * N + col] = sum;
}
