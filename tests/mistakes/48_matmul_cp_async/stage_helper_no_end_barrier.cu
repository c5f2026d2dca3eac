// expect: fail
// kind: shared-race
// line: @bug
// help-has: after the compute | before the next pass
// help-not: inside `if
// why: keeps the barrier after the wait but drops the one at the end of the step loop; the copies go through a helper.
// Puzzle 48 · Double-buffered matmul with cp.async
#include <cuda_pipeline.h>

__device__ void stage(float (*ta)[TPB], float (*tb)[TPB], const float* a, const float* b, int M, int K, int N, int me, int base) {
    int half = me / 64, piece = me % 64;
    int r = piece / 4, c = (piece % 4) * 4;
    if (half == 0) {
        int gr = blockIdx.y * TPB + r;
        bool ok = gr < M && base + c < K;
        __pipeline_memcpy_async(&ta[r][c], ok ? a + gr * K + base + c : a, 16, ok ? 0 : 16);
    } else if (half == 1) {
        int gc = blockIdx.x * TPB + c;
        bool ok = base + r < K && gc < N;
        __pipeline_memcpy_async(&tb[r][c], ok ? b + (base + r) * N + gc : b, 16, ok ? 0 : 16);
    }
}

extern "C" __global__ void matmul_async(float* out, const float* a, const float* b, int M, int K, int N) {
    __shared__ __align__(16) float ta[2][TPB][TPB];
    __shared__ __align__(16) float tb[2][TPB][TPB];
    int me = threadIdx.y * TPB + threadIdx.x;
    int tiles = (K + TPB - 1) / TPB;
    float dot = 0.0f;
    stage(ta[0], tb[0], a, b, M, K, N, me, 0);
    __pipeline_commit();
    for (int kt = 0; kt < tiles; kt++) {
        if (kt + 1 < tiles) stage(ta[(kt + 1) & 1], tb[(kt + 1) & 1], a, b, M, K, N, me, (kt + 1) * TPB);
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        for (int e = 0; e < TPB; e++) dot += ta[kt & 1][threadIdx.y][e] * tb[kt & 1][e][threadIdx.x];  // @bug
    }
    int row = blockIdx.y * TPB + threadIdx.y, col = blockIdx.x * TPB + threadIdx.x;
    if (row < M && col < N) out[row * N + col] = dot;
}
