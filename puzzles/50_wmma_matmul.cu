// Puzzle 50 · WMMA matmul: out (M x N, float) = a (M x K) times b (K x N), half inputs, on tensor cores.
// Check with `gpuzzle run 50`; stuck? `gpuzzle hint 50`.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

extern "C" __global__ void wmma_matmul(float* out, const __half* a, const __half* b, int M, int K, int N) {
    // FILL ME IN (roughly 15 lines). Start from these, uncommented:
    //   int warp = threadIdx.x / 32;  // the same for all 32 lanes of a warp
    //   int tile_row = blockIdx.y * 16;
    //   int tile_col = (blockIdx.x * (blockDim.x / 32) + warp) * 16;
    //   wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a_frag;
    //   wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b_frag;
    //   wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
}
