// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: row * K
// help-not: add a bounds check
// why: the classic mix-up: the row stride of a is K, not N.
// Puzzle 24 · Naive matrix multiply: out (M x N) = a (M x K) x b (K x N), stored row by row.
extern "C" __global__ void matmul_naive(float* out, const float* a, const float* b, int M, int K, int N) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; k++) {
            sum += a[row * N + k] * b[k * N + col];  // @bug
        }
        out[row * N + col] = sum;
    }
}
