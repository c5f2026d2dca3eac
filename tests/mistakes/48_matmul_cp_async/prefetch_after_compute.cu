// expect: fail
// kind: shared-race
// line: @bug
// help-has: __syncthreads()
// help-has: after the compute | before the next pass | end of the loop body
// why: prefetches the next step's tiles after the multiply, with no barrier between the multiply and the prefetch that overwrites the other buffer.
// Puzzle 48 · Double-buffered matmul with cp.async
#include <cuda_pipeline.h>

extern "C" __global__ void matmul_async(float* out, const float* a, const float* b, int M, int K, int N) {
    __shared__ __align__(16) float sa[2][TPB][TPB];
    __shared__ __align__(16) float sb[2][TPB][TPB];
    int tx = threadIdx.x, ty = threadIdx.y;
    int id = ty * TPB + tx;
    int col = blockIdx.x * TPB + tx;
    int row = blockIdx.y * TPB + ty;
    int nsteps = (K + TPB - 1) / TPB;
    float acc = 0.0f;
    int ar = id / 4, ac = (id % 4) * 4;
    int br = (id - 64) / 4, bc = ((id - 64) % 4) * 4;
    for (int st = 0; st <= nsteps; st++) {
        if (st < nsteps) {
            int k0 = st * TPB;
            if (id < 64) {
                int gr = blockIdx.y * TPB + ar;
                bool in = gr < M && k0 + ac < K;
                __pipeline_memcpy_async(&sa[st % 2][ar][ac], in ? a + gr * K + k0 + ac : a, 16, in ? 0 : 16);
            } else if (id < 128) {
                int gc = blockIdx.x * TPB + bc;
                bool in = k0 + br < K && gc < N;
                __pipeline_memcpy_async(&sb[st % 2][br][bc], in ? b + (k0 + br) * N + gc : b, 16, in ? 0 : 16);
            }
        }
        __pipeline_commit();
        if (st > 0) {
            __pipeline_wait_prior(1);
            __syncthreads();
            int p = (st - 1) % 2;
            for (int kk = 0; kk < TPB; kk++) {
                acc += sa[p][ty][kk] * sb[p][kk][tx];  // @bug
            }
        }
    }
    if (row < M && col < N) out[row * N + col] = acc;
}
