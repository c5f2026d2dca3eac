// lazy: async copies into ONE buffer per matrix, waited for at once (wait_prior(0)): nothing is in flight while the block computes
#include <cuda_pipeline.h>

extern "C" __global__ void matmul_async(float* out, const float* a, const float* b, int M, int K, int N) {
    __shared__ __align__(16) float a_tile[TPB][TPB];
    __shared__ __align__(16) float b_tile[TPB][TPB];
    int tx = threadIdx.x, ty = threadIdx.y;
    int tid = ty * TPB + tx;
    int col = blockIdx.x * TPB + tx;
    int row = blockIdx.y * TPB + ty;
    float sum = 0.0f;
    for (int t0 = 0; t0 < K; t0 += TPB) {
        if (tid < 64) {
            int r = tid / 4, c = (tid % 4) * 4;
            int arow = blockIdx.y * TPB + r;
            bool inside = arow < M && t0 + c < K;
            __pipeline_memcpy_async(&a_tile[r][c], inside ? a + arow * K + t0 + c : a, 16, inside ? 0 : 16);
        } else if (tid < 128) {
            int r = (tid - 64) / 4, c = ((tid - 64) % 4) * 4;
            int bcol = blockIdx.x * TPB + c;
            bool inside = t0 + r < K && bcol < N;
            __pipeline_memcpy_async(&b_tile[r][c], inside ? b + (t0 + r) * N + bcol : b, 16, inside ? 0 : 16);
        }
        __pipeline_commit();
        __pipeline_wait_prior(0);
        __syncthreads();
        for (int k = 0; k < TPB; k++) {
            sum += a_tile[ty][k] * b_tile[k][tx];
        }
        __syncthreads();
    }
    if (row < M && col < N) {
        out[row * N + col] = sum;
    }
}
