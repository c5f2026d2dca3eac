// lazy: thread 0 loads the whole tile and the weights alone, the other threads only wait and sum
extern "C" __global__ void conv_2d(float* out, const float* img, const float* w, int rows, int cols) {
    __shared__ float tile[TILE_Y][TILE_X];
    __shared__ float weights[K][K];
    int row0 = blockIdx.y * TPB_Y;
    int col0 = blockIdx.x * TPB_X;
    int row = row0 + threadIdx.y;
    int col = col0 + threadIdx.x;
    if (threadIdx.x == 0 && threadIdx.y == 0) {
        for (int r = 0; r < TILE_Y; r++) {
            for (int c = 0; c < TILE_X; c++) {
                bool inside = row0 + r < rows && col0 + c < cols;
                tile[r][c] = inside ? img[(row0 + r) * cols + col0 + c] : 0.0f;
            }
        }
        for (int k = 0; k < K * K; k++) {
            weights[k / K][k % K] = w[k];
        }
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
