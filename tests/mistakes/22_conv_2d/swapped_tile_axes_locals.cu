// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: tile[ty + dy][tx + dx]
// help-not: if (i < size)
// why: with its own names (tx, ty, dy, dx), reads tile[tx + dy][ty + dx]: the x index runs past the tile's rows.
// Puzzle 22 · 2D convolution: out[r][c] = sum over i, j < K of img[r + i][c + j] * w[i][j].
extern "C" __global__ void conv_2d(float* out, const float* img, const float* w, int rows, int cols) {
    // The block's patch plus its halo, and the weights.
    __shared__ float tile[TILE_Y][TILE_X];
    __shared__ float weights[K][K];
    int t = threadIdx.y * TPB_X + threadIdx.x;
    int row0 = blockIdx.y * TPB_Y;
    int col0 = blockIdx.x * TPB_X;
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = row0 + ty;
    int col = col0 + tx;
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
        for (int dy = 0; dy < K; dy++) {
            for (int dx = 0; dx < K; dx++) {
                sum += tile[tx + dy][ty + dx] * weights[dy][dx];  // @bug
            }
        }
        out[row * cols + col] = sum;
    }
}
