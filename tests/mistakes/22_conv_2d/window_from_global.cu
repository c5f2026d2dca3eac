// expect: fail
// kind: over-budget
// counter: global_reads
// why: right values, straight from global memory: 18 reads per thread.
// help-has: shared | tile
// help-not: guard the access
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
    if (row < rows && col < cols) {
        float sum = 0.0f;
        for (int i = 0; i < K; i++) {
            for (int j = 0; j < K; j++) {
                if (row + i < rows && col + j < cols) {
                    sum += img[(row + i) * cols + col + j] * w[i * K + j];
                }
            }
        }
        out[row * cols + col] = sum;
    }
}
