// expect: fail
// kind: over-budget
// counter: global_reads
// help-has: t < K * K | one weight | each thread | spread | K * K threads
// why: thread 0 copies all K * K weights alone: 9 more global reads than any other thread. The fix
// why: lets the first K * K threads copy one weight each.
// Puzzle 22 · 2D convolution: out[r][c] = sum over i, j < K of img[r + i][c + j] * w[i][j].
extern "C" __global__ void conv_2d(float* out, const float* img, const float* w, int rows, int cols) {
    __shared__ float patch[TILE_Y][TILE_X];
    __shared__ float wk[K][K];
    int tid = threadIdx.y * TPB_X + threadIdx.x;
    int r0 = blockIdx.y * TPB_Y;
    int c0 = blockIdx.x * TPB_X;
    for (int k = tid; k < TILE_Y * TILE_X; k += TPB_X * TPB_Y) {
        int pr = k / TILE_X;
        int pc = k % TILE_X;
        patch[pr][pc] = (r0 + pr < rows && c0 + pc < cols) ? img[(r0 + pr) * cols + c0 + pc] : 0.0f;
    }
    if (tid == 0) {
        for (int q = 0; q < K * K; q++) {
            wk[q / K][q % K] = w[q];  // @bug
        }
    }
    __syncthreads();
    int r = r0 + threadIdx.y;
    int c = c0 + threadIdx.x;
    if (r < rows && c < cols) {
        float acc = 0.0f;
        for (int i = 0; i < K; i++) {
            for (int j = 0; j < K; j++) {
                acc += patch[threadIdx.y + i][threadIdx.x + j] * wk[i][j];
            }
        }
        out[r * cols + c] = acc;
    }
}
