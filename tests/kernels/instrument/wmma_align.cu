// WMMA's alignment rules (tests/instrument_equivalence.rs): the tile pointer 32-byte aligned,
// the leading dimension a multiple of 16 bytes. `shift` halves into `a`, `ldm` for A and
// `oshift` floats into `out` break them (4, 12 and 4); 0, 16 and 0 keep them.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

extern "C" __global__ void wmma_align(float* out, const __half* a, int shift, int ldm, int oshift) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(fa, a + shift, ldm);
    wmma::load_matrix_sync(fb, a, 16);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(out + oshift, acc, 16, wmma::mem_row_major);
}
