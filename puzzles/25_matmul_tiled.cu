// Puzzle 25 · Tiled matrix multiply: out (M x N) = a (M x K) times b (K x N), 16 x 16 shared tiles.
// Check with `gpuzzle run 25`; stuck? `gpuzzle hint 25`.
extern "C" __global__ void matmul_tiled(float* out, const float* a, const float* b, int M, int K, int N) {
    // FILL ME IN (roughly 20 lines). Start from these, uncommented:
    //   __shared__ float a_tile[TPB][TPB];
    //   __shared__ float b_tile[TPB][TPB];
    //   int tx = threadIdx.x;
    //   int ty = threadIdx.y;
    //   int col = blockIdx.x * TPB + tx;  // x runs along the columns of out
    //   int row = blockIdx.y * TPB + ty;  // y runs along its rows
    //   float sum = 0.0f;
}
