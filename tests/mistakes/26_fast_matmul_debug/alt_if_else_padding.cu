// expect: pass
// why: zero padding written with if/else, the in-range flag computed once.
// Puzzle 26 · Debug fast_matmul: C (M x N) = A (M x K) x B (K x N), 16 x 16 shared tiles.
extern "C" __global__ void fast_matmul(float* C, const float* A, const float* B, int M, int K, int N) {
    __shared__ float sA[TPB][TPB];
    __shared__ float sB[TPB][TPB];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int col = blockIdx.x * TPB + tx;
    int row = blockIdx.y * TPB + ty;
    bool in_c = row < M && col < N;
    float tmp = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TPB) {
        if (row < M && k0 + tx < K) {
            sA[ty][tx] = A[row * K + k0 + tx];
        } else {
            sA[ty][tx] = 0.0f;
        }
        if (k0 + ty < K && col < N) {
            sB[ty][tx] = B[(k0 + ty) * N + col];
        } else {
            sB[ty][tx] = 0.0f;
        }
        __syncthreads();
        for (int j = 0; j < TPB; j++) {
            tmp += sA[ty][j] * sB[j][tx];
        }
        __syncthreads();
    }
    if (in_c) {
        C[row * N + col] = tmp;
    }
}
