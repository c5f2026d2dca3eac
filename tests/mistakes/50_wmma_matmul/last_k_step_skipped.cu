// expect: fail
// kind: wrong-output
// help-has: k0 < K
// help-not: fill_fragment
// why: the k loop stops one step early (k0 + 16 < K): the last 16-wide slab of a and b is never
// why: multiplied in. The loop runs while k0 < K.
// Puzzle 50 · WMMA matmul: out (M x N, float) = a (M x K) times b (K x N), half inputs, on tensor cores.
// Check with `gpuzzle run 50`; stuck? `gpuzzle hint 50`.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

extern "C" __global__ void wmma_matmul(float* out, const __half* a, const __half* b, int M, int K, int N) {
    int warp = threadIdx.x / 32;
    int tile_row = blockIdx.y * 16;
    int tile_col = (blockIdx.x * (blockDim.x / 32) + warp) * 16;
    // The whole warp has no tile: it leaves together (the same value for all 32 lanes).
    if (tile_row >= M || tile_col >= N) return;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b_frag;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 + 16 < K; k0 += 16) {  // @bug
        wmma::load_matrix_sync(a_frag, a + tile_row * K + k0, K);
        wmma::load_matrix_sync(b_frag, b + k0 * N + tile_col, N);
        wmma::mma_sync(acc, a_frag, b_frag, acc);
    }
    wmma::store_matrix_sync(out + tile_row * N + tile_col, acc, N, wmma::mem_row_major);
}
