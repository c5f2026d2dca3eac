// Planted WMMA bugs for tests/wmma.rs; each names the line the test expects.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

// A (m x k) loaded with the leading dimension of B (n): rows past A's end.
__global__ void wrong_ldm(const half* a, const half* b, float* c, int m, int n, int k) {
    int row = blockIdx.y * 16;
    int col = blockIdx.x * 16;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int kk = 0; kk < k; kk += 16) {
        wmma::load_matrix_sync(fa, a + row * n + kk, n);
        wmma::load_matrix_sync(fb, b + kk * n + col, n);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(c + row * n + col, acc, n, wmma::mem_row_major);
}

// A 16 x 12 tile with ldm 12: not a multiple of 8 halves (16 bytes).
__global__ void odd_ldm(const half* a, float* c) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(fa, a, 12);
    wmma::load_matrix_sync(fb, a, 12);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
}

// Only half the warp stores the tile.
__global__ void half_warp(const half* a, float* c) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, a, 16);
    wmma::mma_sync(acc, fa, fb, acc);
    if (threadIdx.x < 16) {
        wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
    }
}
