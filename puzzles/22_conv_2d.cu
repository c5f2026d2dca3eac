// Puzzle 22 · 2D convolution: out[r][c] = sum over i, j < K of img[r + i][c + j] * w[i][j].
// Check with `gpuzzle run 22`; stuck? `gpuzzle hint 22`.
extern "C" __global__ void conv_2d(float* out, const float* img, const float* w, int rows, int cols) {
    // FILL ME IN (roughly 25 lines). Start from these, uncommented:
    //   __shared__ float tile[TILE_Y][TILE_X];      // the block's patch plus its halo
    //   __shared__ float weights[K][K];
    //   int t = threadIdx.y * TPB_X + threadIdx.x;  // the thread's number in its block, 0..63
    //   int row0 = blockIdx.y * TPB_Y;              // the block's patch starts at (row0, col0)
    //   int col0 = blockIdx.x * TPB_X;
    //   int row = row0 + threadIdx.y;               // this thread's output pixel
    //   int col = col0 + threadIdx.x;
}
