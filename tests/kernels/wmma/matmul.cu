// WMMA kernels as people write them with mma.h, for tests/wmma.rs.
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;

// C (m x n, f32) = A (m x k, f16, row-major) x B (k x n, f16, row-major): one warp per 16x16
// tile of C, blockIdx.x along the columns and blockIdx.y along the rows.
__global__ void matmul_f16(const half* a, const half* b, float* c, int m, int n, int k) {
    int row = blockIdx.y * 16;
    int col = blockIdx.x * 16;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int kk = 0; kk < k; kk += 16) {
        wmma::load_matrix_sync(fa, a + row * k + kk, k);
        wmma::load_matrix_sync(fb, b + kk * n + col, n);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(c + row * n + col, acc, n, wmma::mem_row_major);
}

// One warp: C (32 x 8, f32) given column-major, returned row-major, plus A (32 x k, bf16,
// column-major) x B (k x 8, bf16, row-major); C passes through shared memory.
__global__ void m32n8_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int k) {
    __shared__ float tile[32 * 8];
    for (int i = threadIdx.x; i < 32 * 8; i += 32) tile[i] = c[i];
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 32, 8, 16, __nv_bfloat16, wmma::col_major> fa;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, __nv_bfloat16, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 32, 8, 16, float> acc;
    wmma::load_matrix_sync(acc, tile, 32, wmma::mem_col_major);
    for (int kk = 0; kk < k; kk += 16) {
        wmma::load_matrix_sync(fa, a + kk * 32, 32);
        wmma::load_matrix_sync(fb, b + kk * 8, 8);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    __syncwarp();
    wmma::store_matrix_sync(tile, acc, 8, wmma::mem_row_major);
    __syncwarp();
    for (int i = threadIdx.x; i < 32 * 8; i += 32) c[i] = tile[i];
}

// One warp: C (8 x 32, f16, column-major) += A (8 x k, f16, row-major) x B (k x 32, f16,
// column-major), accumulated in f16.
__global__ void m8n32_f16(const half* a, const half* b, half* c, int k) {
    wmma::fragment<wmma::matrix_a, 8, 32, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 32, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 8, 32, 16, half> acc;
    wmma::load_matrix_sync(acc, c, 8, wmma::mem_col_major);
    for (int kk = 0; kk < k; kk += 16) {
        wmma::load_matrix_sync(fa, a + kk, k);
        wmma::load_matrix_sync(fb, b + kk, k);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(c, acc, 8, wmma::mem_col_major);
}
