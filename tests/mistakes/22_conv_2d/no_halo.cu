// expect: fail
// kind: uninitialized-read
// line: @bug
// help-has: halo
// help-not: atomicAdd
// why: each thread loads only its own pixel: the halo slots of the tile are never written.
// Puzzle 22 · 2D convolution: out[r][c] = sum over i, j < K of img[r + i][c + j] * w[i][j].
extern "C" __global__ void conv_2d(float* out, const float* img, const float* w, int rows, int cols) {
    // The block's patch plus its halo, and the weights.
    __shared__ float tile[TILE_Y][TILE_X];
    __shared__ float weights[K][K];
    int t = threadIdx.y * TPB_X + threadIdx.x;
    int row0 = blockIdx.y * TPB_Y;
    int col0 = blockIdx.x * TPB_X;
    int row = row0 + threadIdx.y;
    int col = col0 + threadIdx.x;
    tile[threadIdx.y][threadIdx.x] = (row < rows && col < cols) ? img[row * cols + col] : 0.0f;
    if (t < K * K) {
        weights[t / K][t % K] = w[t];
    }
    __syncthreads();
    if (row < rows && col < cols) {
        float sum = 0.0f;
        for (int i = 0; i < K; i++) {
            for (int j = 0; j < K; j++) {
                sum += tile[threadIdx.y + i][threadIdx.x + j] * weights[i][j];  // @bug
            }
        }
        out[row * cols + col] = sum;
    }
}
