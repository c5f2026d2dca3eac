// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: t0 + tx < K | < K
// help-not: row < M &&
// why: the a tile checks the row but not the column t0 + tx: in the last tile it reads past the
// why: end of the row, and past a itself in the last row. The fix adds `t0 + tx < K` (zero-fill).
// Puzzle 25 · Tiled matrix multiply: out (M x N) = a (M x K) times b (K x N), 16 x 16 shared tiles.
extern "C" __global__ void matmul_tiled(float* out, const float* a, const float* b, int M, int K, int N) {
    __shared__ float ta[TPB][TPB];
    __shared__ float tb[TPB][TPB];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int col = blockIdx.x * TPB + tx;
    int row = blockIdx.y * TPB + ty;
    float sum = 0.0f;
    for (int t0 = 0; t0 < K; t0 += TPB) {
        ta[ty][tx] = row < M ? a[row * K + t0 + tx] : 0.0f;  // @bug
        tb[ty][tx] = (t0 + ty < K && col < N) ? b[(t0 + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TPB; k++) {
            sum += ta[ty][k] * tb[k][tx];
        }
        __syncthreads();
    }
    if (row < M && col < N) {
        out[row * N + col] = sum;
    }
}
