// expect: pass
// why: declares the a and b fragments inside the k loop (a fresh pair per step) and adds each
// why: step's product into its own zeroed accumulator, summed element by element into the total.
// Puzzle 50 · WMMA matmul.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

extern "C" __global__ void wmma_matmul(float* out, const __half* a, const __half* b, int M, int K, int N) {
    int warp = threadIdx.x / 32;
    int tile_row = blockIdx.y * 16;
    int tile_col = (blockIdx.x * (blockDim.x / 32) + warp) * 16;
    if (tile_row >= M || tile_col >= N) return;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> total;
    wmma::fill_fragment(total, 0.0f);
    for (int k0 = 0; k0 < K; k0 += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> step;
        wmma::load_matrix_sync(fa, a + tile_row * K + k0, K);
        wmma::load_matrix_sync(fb, b + k0 * N + tile_col, N);
        wmma::fill_fragment(step, 0.0f);
        wmma::mma_sync(step, fa, fb, step);
        for (int e = 0; e < total.num_elements; e++) total.x[e] += step.x[e];
    }
    wmma::store_matrix_sync(out + tile_row * N + tile_col, total, N, wmma::mem_row_major);
}
