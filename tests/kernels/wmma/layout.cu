// Which lane holds which element of a WMMA fragment (tests/wmma.rs): one warp loads A, B and C
// from matrices whose elements are their own indices, and each lane writes out what its
// fragments hold, element by element (out[lane * num_elements + i] = frag.x[i]). Run on a GPU
// and on the emulator, the two must agree for gpuzzle's layout to be the hardware's.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

extern "C" __global__ void fragment_layout(float* out_a, float* out_b, float* out_c,
                                           const __half* a, const __half* b, const float* c) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
    int lane = threadIdx.x % 32;
    for (int i = 0; i < fa.num_elements; i++) out_a[lane * fa.num_elements + i] = __half2float(fa.x[i]);
    for (int i = 0; i < fb.num_elements; i++) out_b[lane * fb.num_elements + i] = __half2float(fb.x[i]);
    for (int i = 0; i < fc.num_elements; i++) out_c[lane * fc.num_elements + i] = fc.x[i];
}
