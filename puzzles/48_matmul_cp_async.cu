// Puzzle 48 · Double-buffered matmul with cp.async: out (M x N) = a (M x K) times b (K x N).
// Check with `gpuzzle run 48`; stuck? `gpuzzle hint 48`.
#include <cuda_pipeline.h>

extern "C" __global__ void matmul_async(float* out, const float* a, const float* b, int M, int K, int N) {
    // FILL ME IN (roughly 35 lines). Start from these, uncommented:
    //   __shared__ __align__(16) float a_tile[2][TPB][TPB];
    //   __shared__ __align__(16) float b_tile[2][TPB][TPB];
    //   int tid = threadIdx.y * TPB + threadIdx.x;  // threads 0..127 copy, 16 bytes each
    //   int col = blockIdx.x * TPB + threadIdx.x;
    //   int row = blockIdx.y * TPB + threadIdx.y;
    //   float sum = 0.0f;
}
