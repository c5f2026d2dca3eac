// WMMA through global and shared memory (tests/instrument_equivalence.rs): one warp computes
// out (16 x 16) = a (16 x k, row-major, from global) x b (k x 16, row-major, staged in shared
// memory column by column and loaded col_major); the product goes out through shared memory.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

extern "C" __global__ void wmma(float* out, const __half* a, const __half* b, int k) {
    __shared__ __half b_cols[16 * 64];
    __shared__ float tile[16 * 16];
    for (int i = threadIdx.x; i < k * 16; i += 32) {
        int row = i / 16, col = i % 16;
        b_cols[col * k + row] = b[i];
    }
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < k; k0 += 16) {
        wmma::load_matrix_sync(fa, a + k0, k);
        wmma::load_matrix_sync(fb, b_cols + k0, k);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(tile, acc, 16, wmma::mem_row_major);
    __syncwarp();
    for (int i = threadIdx.x; i < 256; i += 32) out[i] = tile[i];
}
