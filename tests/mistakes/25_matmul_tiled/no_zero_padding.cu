// expect: fail
// kind: uninitialized-read
// line: @bug
// help-has: 0.0f | zero
// help-not: __syncthreads()
// why: skips the loads outside the matrices but does not zero those slots.
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
        if (row < M && t0 + tx < K) a_tile[ty][tx] = a[row * K + t0 + tx];
        if (t0 + ty < K && col < N) b_tile[ty][tx] = b[(t0 + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < TPB; k++) {
            sum += a_tile[ty][k] * b_tile[k][tx];  // @bug
        }
        __syncthreads();
    }
    if (row < M && col < N) {
        out[row * N + col] = sum;
    }
}
