// Puzzle 24 · Naive matrix multiply: out (M x N) = a (M x K) times b (K x N), stored row by row.
// Check with `gpuzzle run 24`; stuck? `gpuzzle hint 24`.
extern "C" __global__ void matmul_naive(float* out, const float* a, const float* b, int M, int K, int N) {
    // FILL ME IN (roughly 9 lines). Start from these, uncommented:
    //   int col = blockIdx.x * blockDim.x + threadIdx.x;  // x runs along the columns of out
    //   int row = blockIdx.y * blockDim.y + threadIdx.y;  // y runs along its rows
}
