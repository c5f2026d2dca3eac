// lazy: throws the tiles away and reads every product from global memory (puzzle 24's naive loop)
extern "C" __global__ void fast_matmul(float* C, const float* A, const float* B, int M, int K, int N) {
    int col = blockIdx.x * TPB + threadIdx.x;
    int row = blockIdx.y * TPB + threadIdx.y;
    if (row >= M || col >= N) {
        return;
    }
    float tmp = 0.0f;
    for (int k = 0; k < K; k++) {
        tmp += A[row * K + k] * B[k * N + col];
    }
    C[row * N + col] = tmp;
}
