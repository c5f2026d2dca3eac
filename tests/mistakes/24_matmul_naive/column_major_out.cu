// expect: fail
// kind: wrong-output
// why: stores out column by column (col * M + row).
// help-has: row * | row-major | row major | transpos
// help-not: __syncthreads()
// Puzzle 24 · Naive matrix multiply: out (M x N) = a (M x K) x b (K x N), stored row by row.
extern "C" __global__ void matmul_naive(float* out, const float* a, const float* b, int M, int K, int N) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; k++) {
            sum += a[row * K + k] * b[k * N + col];
        }
        out[col * M + row] = sum;
    }
}
