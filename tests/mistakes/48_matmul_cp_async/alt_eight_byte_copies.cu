// expect: pass
// why: every thread of the block copies 8 bytes (two floats) of one tile per step with cp.async (threads 0..127 a, 128..255 b), double-buffered: one copy per thread per step
// Puzzle 48 · Double-buffered matmul with cp.async: out (M x N) = a (M x K) times b (K x N).
#include <cuda_pipeline.h>
__device__ void fetch(float (*at)[TPB], float (*bt)[TPB], const float* a, const float* b, int M, int K, int N, int tid, int t0) {
    int e = tid % 128, r = e / 8, c = (e % 8) * 2;
    if (tid < 128) {
        int row = blockIdx.y * TPB + r;
        bool inside = row < M && t0 + c < K;
        __pipeline_memcpy_async(&at[r][c], inside ? a + row * K + t0 + c : a, 8, inside ? 0 : 8);
    } else {
        int col = blockIdx.x * TPB + c;
        bool inside = t0 + r < K && col < N;
        __pipeline_memcpy_async(&bt[r][c], inside ? b + (t0 + r) * N + col : b, 8, inside ? 0 : 8);
    }
}
extern "C" __global__ void matmul_async(float* out, const float* a, const float* b, int M, int K, int N) {
    __shared__ __align__(16) float at[2][TPB][TPB];
    __shared__ __align__(16) float bt[2][TPB][TPB];
    int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TPB + tx;
    int col = blockIdx.x * TPB + tx, row = blockIdx.y * TPB + ty;
    int steps = (K + TPB - 1) / TPB;
    float sum = 0.0f;
    fetch(at[0], bt[0], a, b, M, K, N, tid, 0);
    __pipeline_commit();
    for (int s = 0; s < steps; s++) {
        if (s + 1 < steps) {
            fetch(at[(s + 1) % 2], bt[(s + 1) % 2], a, b, M, K, N, tid, (s + 1) * TPB);
        }
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        for (int k = 0; k < TPB; k++) {
            sum += at[s % 2][ty][k] * bt[s % 2][k][tx];
        }
        __syncthreads();
    }
    if (row < M && col < N) {
        out[row * N + col] = sum;
    }
}
