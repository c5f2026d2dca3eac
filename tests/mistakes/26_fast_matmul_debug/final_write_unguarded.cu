// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: row < M && col < N | col < N
// help-not: 0.0f
// why: everything fixed except the guard on the final write.
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
        sA[ty][tx] = (row < M && i * TPB + tx < K) ? A[row * K + i * TPB + tx] : 0.0f;
        sB[ty][tx] = (i * TPB + ty < K && col < N) ? B[(i * TPB + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int j = 0; j < TPB; j++) {
            tmp += sA[ty][j] * sB[j][tx];
        }
        __syncthreads();
    }
    C[row * N + col] = tmp;  // @bug
}
