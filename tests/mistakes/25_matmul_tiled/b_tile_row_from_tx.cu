// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: t0 + ty
// help-not: store 0.0f
// why: loads b's tile with the row taken from tx and the column from ty (the axes swapped), guarded as the right index would be.
// Puzzle 25 · Tiled matmul
extern "C" __global__ void matmul_tiled(float* out, const float* a, const float* b, int M, int K, int N) {
    __shared__ float as[TPB][TPB];
    __shared__ float bs[TPB][TPB];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int col = blockIdx.x * TPB + tx;
    int row = blockIdx.y * TPB + ty;
    float acc = 0.0f;
    for (int t0 = 0; t0 < K; t0 += TPB) {
        as[ty][tx] = (row < M && t0 + tx < K) ? a[row * K + t0 + tx] : 0.0f;
        bs[ty][tx] = (t0 + ty < K && col < N) ? b[(t0 + tx) * N + col] : 0.0f;  // @bug
        __syncthreads();
        for (int k = 0; k < TPB; k++) acc += as[ty][k] * bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) out[row * N + col] = acc;
}
