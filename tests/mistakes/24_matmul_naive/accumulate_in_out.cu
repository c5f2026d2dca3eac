// expect: fail
// kind: over-budget
// counter: global_writes
// why: adds into out at every step instead of keeping the sum in a register.
// help-has: register | once | one write
// help-not: guard the access
// Puzzle 24 · Naive matrix multiply: out (M x N) = a (M x K) x b (K x N), stored row by row.
extern "C" __global__ void matmul_naive(float* out, const float* a, const float* b, int M, int K, int N) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        out[row * N + col] = 0.0f;
        for (int k = 0; k < K; k++) {
            out[row * N + col] += a[row * K + k] * b[k * N + col];
        }
    }
}
