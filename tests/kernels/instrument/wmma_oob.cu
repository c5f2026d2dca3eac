// A WMMA load past its buffer (tests/instrument_equivalence.rs): ldm is the row length of a
// matrix twice as wide as `a`, so the tile's lower rows fall off a's end.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

extern "C" __global__ void wmma_oob(float* out, const __half* a) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(fa, a, 32);
    wmma::load_matrix_sync(fb, a, 16);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(out, acc, 16, wmma::mem_row_major);
}
