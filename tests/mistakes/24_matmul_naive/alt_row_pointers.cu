// expect: pass
// why: walks a row pointer and a column pointer instead of computing indices.
// Puzzle 24 · Naive matrix multiply: out (M x N) = a (M x K) x b (K x N), stored row by row.
extern "C" __global__ void matmul_naive(float* out, const float* a, const float* b, int M, int K, int N) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N) return;
    const float* pa = a + row * K;
    const float* pb = b + col;
    float sum = 0.0f;
    for (int k = 0; k < K; k++, pb += N) {
        sum += pa[k] * *pb;
    }
    out[row * N + col] = sum;
}
