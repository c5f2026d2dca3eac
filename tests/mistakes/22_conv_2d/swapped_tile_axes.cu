// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: threadIdx.y + i
// help-not: if (i < size)
// why: reads tile[x][y]: the 16-wide x index runs past the 6 rows of the tile.
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
    for (int k = t; k < TILE_Y * TILE_X; k += TPB_X * TPB_Y) {
        int r = k / TILE_X;
        int c = k % TILE_X;
        bool inside = row0 + r < rows && col0 + c < cols;
        tile[r][c] = inside ? img[(row0 + r) * cols + col0 + c] : 0.0f;
    }
    if (t < K * K) {
        weights[t / K][t % K] = w[t];
    }
    __syncthreads();
    if (row < rows && col < cols) {
        float sum = 0.0f;
        for (int i = 0; i < K; i++) {
            for (int j = 0; j < K; j++) {
                sum += tile[threadIdx.x + i][threadIdx.y + j] * weights[i][j];  // @bug
            }
        }
        out[row * cols + col] = sum;
    }
}
