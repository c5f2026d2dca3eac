// expect: fail
// kind: wrong-output
// why: stores the accumulator with wmma::mem_col_major into a row-major out: each tile transposed.
// help-has: mem_row_major
// help-not: guard
// Puzzle 50 · WMMA matmul: out (M x N, float) = a (M x K) times b (K x N), half inputs, on tensor cores.
// Check with `gpuzzle run 50`; stuck? `gpuzzle hint 50`.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

extern "C" __global__ void wmma_matmul(float* out, const __half* a, const __half* b, int M, int K, int N) {
    int wid = threadIdx.x / 32;
    int r0 = blockIdx.y * 16;
    int c0 = (blockIdx.x * (blockDim.x / 32) + wid) * 16;
    if (r0 >= M || c0 >= N) return;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    for (int kk = 0; kk < K; kk += 16) {
        wmma::load_matrix_sync(fa, a + r0 * K + kk, K);
        wmma::load_matrix_sync(fb, b + kk * N + c0, N);
        wmma::mma_sync(fc, fa, fb, fc);
    }
    wmma::store_matrix_sync(out + r0 * N + c0, fc, N, wmma::mem_col_major);
}
