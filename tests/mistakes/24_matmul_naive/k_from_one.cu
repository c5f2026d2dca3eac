// expect: fail
// kind: wrong-output
// help-has: k = 0
// why: held-out (stop 44): the dot product loop starts at k = 1 and drops the first product
// Puzzle 24 · Naive matrix multiply: out (M x N) = a (M x K) times b (K x N), stored row by row.
extern "C" __global__ void matmul_naive(float* out, const float* a, const float* b, int M, int K, int N) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float sum = 0.0f;  // in a register: out is written once, at the end
        for (int k = 1; k < K; k++) {
            sum += a[row * K + k] * b[k * N + col];
        }
        out[row * N + col] = sum;
    }
}
