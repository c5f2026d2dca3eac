// lazy: puzzle 25's synchronous tiles, one plain load of a and one of b per thread per step
extern "C" __global__ void matmul_async(float* out, const float* a, const float* b, int M, int K, int N) {
    __shared__ float a_tile[TPB][TPB];
    __shared__ float b_tile[TPB][TPB];
    int tx = threadIdx.x, ty = threadIdx.y;
    int col = blockIdx.x * TPB + tx;
    int row = blockIdx.y * TPB + ty;
    float sum = 0.0f;
    for (int t0 = 0; t0 < K; t0 += TPB) {
        a_tile[ty][tx] = (row < M && t0 + tx < K) ? a[row * K + t0 + tx] : 0.0f;
        b_tile[ty][tx] = (t0 + ty < K && col < N) ? b[(t0 + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TPB; k++) {
            sum += a_tile[ty][k] * b_tile[k][tx];
        }
        __syncthreads();
    }
    if (row < M && col < N) {
        out[row * N + col] = sum;
    }
}
