// expect: fail
// kind: async-copy
// line: @bug
// help-has: (s + 1) % 2 | other buffer | the other half | next buffer
// why: the prefetch of step s + 1 goes into buffer s % 2, the one this step reads: the copies
// why: still in flight land in the tile while it is being multiplied. It belongs in (s + 1) % 2.
// why: The line is the call that passes the wrong buffer (line 46); the header first
// why: named the read, but the first conflict is this copy over the copy still in flight.
// Puzzle 48 · Double-buffered matmul with cp.async: out (M x N) = a (M x K) times b (K x N).
#include <cuda_pipeline.h>

// Thread `tid` (0..127) starts one 16-byte copy of step t0 into buffer `buf`: threads 0..63 a
// row-piece of a's tile, threads 64..127 one of b's. A piece outside its matrix copies nothing
// and fills its 16 bytes with zeros (the last argument of __pipeline_memcpy_async).
__device__ void fetch(float (*a_tile)[TPB], float (*b_tile)[TPB], const float* a, const float* b,
                      int M, int K, int N, int tid, int t0) {
    if (tid < 64) {
        int r = tid / 4, c = (tid % 4) * 4;
        int row = blockIdx.y * TPB + r;
        bool inside = row < M && t0 + c < K;
        const float* src = inside ? a + row * K + t0 + c : a;
        __pipeline_memcpy_async(&a_tile[r][c], src, 16, inside ? 0 : 16);
    } else if (tid < 128) {
        int r = (tid - 64) / 4, c = ((tid - 64) % 4) * 4;
        int col = blockIdx.x * TPB + c;
        bool inside = t0 + r < K && col < N;
        const float* src = inside ? b + (t0 + r) * N + col : b;
        __pipeline_memcpy_async(&b_tile[r][c], src, 16, inside ? 0 : 16);
    }
}

extern "C" __global__ void matmul_async(float* out, const float* a, const float* b, int M, int K, int N) {
    __shared__ __align__(16) float a_tile[2][TPB][TPB];
    __shared__ __align__(16) float b_tile[2][TPB][TPB];
    int tx = threadIdx.x, ty = threadIdx.y;
    int tid = ty * TPB + tx;
    int col = blockIdx.x * TPB + tx;
    int row = blockIdx.y * TPB + ty;
    int steps = (K + TPB - 1) / TPB;
    float sum = 0.0f;
    fetch(a_tile[0], b_tile[0], a, b, M, K, N, tid, 0);
    __pipeline_commit();
    for (int s = 0; s < steps; s++) {
        // Start the next tiles into the other buffer while this step computes.
        if (s + 1 < steps) {
            fetch(a_tile[s % 2], b_tile[s % 2], a, b, M, K, N, tid, (s + 1) * TPB);  // @bug
        }
        // One group per step, empty in the last: then "all but the newest group" is always
        // the group of step s.
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();  // every thread's pieces of step s have landed
        for (int k = 0; k < TPB; k++) {
            sum += a_tile[s % 2][ty][k] * b_tile[s % 2][k][tx];
        }
        __syncthreads();  // nobody copies over buffer s % 2 while another thread still reads it
    }
    if (row < M && col < N) {
        out[row * N + col] = sum;
    }
}
