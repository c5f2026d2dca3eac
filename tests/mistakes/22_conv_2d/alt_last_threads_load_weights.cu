// expect: pass
// why: a while loop for the tile, and the weights loaded by the last 9 threads instead of the first.
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
    // The weights come from the last 9 threads, whose share of the tile is the smallest.
    int k = t;
    while (k < TILE_Y * TILE_X) {
        int gr = row0 + k / TILE_X, gc = col0 + k % TILE_X;
        tile[k / TILE_X][k % TILE_X] = (gr < rows && gc < cols) ? img[gr * cols + gc] : 0.0f;
        k += TPB_X * TPB_Y;
    }
    int wt = t - (TPB_X * TPB_Y - K * K);
    if (wt >= 0) {
        weights[wt / K][wt % K] = w[wt];
    }
    __syncthreads();
    if (row < rows && col < cols) {
        float sum = 0.0f;
        for (int i = 0; i < K; i++) {
            for (int j = 0; j < K; j++) {
                sum += tile[threadIdx.y + i][threadIdx.x + j] * weights[i][j];
            }
        }
        out[row * cols + col] = sum;
    }
}
