// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: q < K
// help-not: guard both coordinates
// why: runs the inner product over N (the columns of out) instead of K.
// Puzzle 24 · Naive matrix multiply: out (M x N) = a (M x K) times b (K x N), stored row by row.
// Check with `gpuzzle run 24`; stuck? `gpuzzle hint 24`.
extern "C" __global__ void matmul_naive(float* out, const float* a, const float* b, int M, int K, int N) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < M && c < N) {
        float s = 0.0f;
        for (int q = 0; q < N; q++) {
            s += a[r * K + q] * b[q * N + c];  // @bug
        }
        out[r * N + c] = s;
    }
}
