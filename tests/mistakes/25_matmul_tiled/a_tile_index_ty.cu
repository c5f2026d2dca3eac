// expect: fail
// kind: wrong-output
// why: loads a's tile with ty where tx belongs: a_tile[ty][tx] = a[row][t0 + ty].
// help-has: tx | threadIdx.x
// help-not: guard the access
// Puzzle 25 · Tiled matrix multiply: out (M x N) = a (M x K) x b (K x N), 16 x 16 shared tiles.
extern "C" __global__ void matmul_tiled(float* out, const float* a, const float* b, int M, int K, int N) {
    __shared__ float a_tile[TPB][TPB];
    __shared__ float b_tile[TPB][TPB];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int col = blockIdx.x * TPB + tx;
    int row = blockIdx.y * TPB + ty;
    float sum = 0.0f;
    for (int t0 = 0; t0 < K; t0 += TPB) {
        a_tile[ty][tx] = (row < M && t0 + ty < K) ? a[row * K + t0 + ty] : 0.0f;
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
