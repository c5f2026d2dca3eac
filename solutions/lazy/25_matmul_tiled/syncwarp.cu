// lazy: the reference with __syncwarp() where __syncthreads() belongs (only right within one warp)
extern "C" __global__ void matmul_tiled(float* out, const float* a, const float* b, int M, int K, int N) {
    __shared__ float a_tile[TPB][TPB];
    __shared__ float b_tile[TPB][TPB];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int col = blockIdx.x * TPB + tx;
    int row = blockIdx.y * TPB + ty;
    float sum = 0.0f;
    for (int t0 = 0; t0 < K; t0 += TPB) {
        // Zero padding outside a matrix: those products add nothing.
        a_tile[ty][tx] = (row < M && t0 + tx < K) ? a[row * K + t0 + tx] : 0.0f;
        b_tile[ty][tx] = (t0 + ty < K && col < N) ? b[(t0 + ty) * N + col] : 0.0f;
        __syncwarp();  // the tiles are complete before anyone reads them
        for (int k = 0; k < TPB; k++) {
            sum += a_tile[ty][k] * b_tile[k][tx];
        }
        __syncwarp();  // nobody overwrites a tile while another thread still reads it
    }
    if (row < M && col < N) {
        out[row * N + col] = sum;
    }
}
