// expect: fail
// kind: over-budget
// counter: require:cp_async_overlap
// why: double-buffers, but waits for every group (including the one it just started for the next
// why: step) before computing: no copy overlaps the work.
// help-has: __pipeline_wait_prior(1) | wait_group 1 | all but the newest
// help-not: __syncthreads() inside
// Puzzle 48 · Double-buffered matmul with cp.async: out (M x N) = a (M x K) times b (K x N).
// Check with `gpuzzle run 48`; stuck? `gpuzzle hint 48`.
#include <cuda_pipeline.h>

__device__ void load_tiles(float (*as)[TPB], float (*bs)[TPB], const float* a, const float* b,
                           int M, int K, int N, int id, int k0) {
    if (id < 64) {
        int r = id / 4, c = (id % 4) * 4;
        int gr = blockIdx.y * TPB + r;
        bool ok = gr < M && k0 + c < K;
        __pipeline_memcpy_async(&as[r][c], ok ? a + gr * K + k0 + c : a, 16, ok ? 0 : 16);
    } else if (id < 128) {
        int r = (id - 64) / 4, c = ((id - 64) % 4) * 4;
        int gc = blockIdx.x * TPB + c;
        bool ok = k0 + r < K && gc < N;
        __pipeline_memcpy_async(&bs[r][c], ok ? b + (k0 + r) * N + gc : b, 16, ok ? 0 : 16);
    }
}

extern "C" __global__ void matmul_async(float* out, const float* a, const float* b, int M, int K, int N) {
    __shared__ __align__(16) float as[2][TPB][TPB];
    __shared__ __align__(16) float bs[2][TPB][TPB];
    int x = threadIdx.x, y = threadIdx.y;
    int id = y * TPB + x;
    int gc = blockIdx.x * TPB + x;
    int gr = blockIdx.y * TPB + y;
    int n_steps = (K + TPB - 1) / TPB;
    float acc = 0.0f;
    load_tiles(as[0], bs[0], a, b, M, K, N, id, 0);
    __pipeline_commit();
    for (int st = 0; st < n_steps; st++) {
        if (st + 1 < n_steps) {
            load_tiles(as[(st + 1) % 2], bs[(st + 1) % 2], a, b, M, K, N, id, (st + 1) * TPB);
        }
        __pipeline_commit();
        __pipeline_wait_prior(0);
        __syncthreads();
        for (int k = 0; k < TPB; k++) {
            acc += as[st % 2][y][k] * bs[st % 2][k][x];
        }
        __syncthreads();
    }
    if (gr < M && gc < N) {
        out[gr * N + gc] = acc;
    }
}
