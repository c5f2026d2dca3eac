// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: row < M && col < N | col < N
// help-not: atomicAdd
// why: no guard: the threads cover 8 columns by 8 rows for 5 x 3 outputs.
// Puzzle 24 · Naive matrix multiply: out (M x N) = a (M x K) x b (K x N), stored row by row.
extern "C" __global__ void matmul_naive(float* out, const float* a, const float* b, int M, int K, int N) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    float sum = 0.0f;
    for (int k = 0; k < K; k++) {
        sum += a[row * K + k] * b[k * N + col];  // @bug
    }
    out[row * N + col] = sum;
}
