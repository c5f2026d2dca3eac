// expect: fail
// kind: uninitialized-read
// line: @bug
// help-has: 0.0f | zero
// help-not: __syncthreads()
// why: guards the preloads with ifs but leaves the skipped slots as they were.
// Puzzle 26 · Debug fast_matmul: C (M x N) = A (M x K) x B (K x N), 16 x 16 shared tiles.
extern "C" __global__ void fast_matmul(float* C, const float* A, const float* B, int M, int K, int N) {
    __shared__ float sA[TPB][TPB];
    __shared__ float sB[TPB][TPB];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int col = blockIdx.x * TPB + tx;
    int row = blockIdx.y * TPB + ty;
    float tmp = 0.0f;
    int steps = (K + TPB - 1) / TPB;
    for (int i = 0; i < steps; i++) {
        if (row < M && i * TPB + tx < K) sA[ty][tx] = A[row * K + i * TPB + tx];
        if (i * TPB + ty < K && col < N) sB[ty][tx] = B[(i * TPB + ty) * N + col];
        __syncthreads();
        for (int j = 0; j < TPB; j++) {
            tmp += sA[ty][j] * sB[j][tx];  // @bug
        }
        __syncthreads();
    }
    if (row < M && col < N) {
        C[row * N + col] = tmp;
    }
}
