// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: y < M
// help-not: atomicAdd
// why: names the coordinates x and y, and checks y against N and x against M.
// Puzzle 24 · Naive matrix multiply: out (M x N) = a (M x K) x b (K x N), stored row by row.
extern "C" __global__ void matmul_naive(float* out, const float* a, const float* b, int M, int K, int N) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (y < N && x < M) {
        float sum = 0.0f;
        for (int k = 0; k < K; k++) {
            sum += a[y * K + k] * b[k * N + x];  // @bug
        }
        out[y * N + x] = sum;
    }
}
