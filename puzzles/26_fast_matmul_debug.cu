// Puzzle 26 · Debug fast_matmul: C (M x N) = A (M x K) x B (K x N), 16 x 16 shared tiles.
// Nothing to fill in this time: this kernel is complete. It is modelled on the shared-memory
// matmul that Numba's documentation showed until 2021, rewritten in CUDA C. It gives the right
// answer whenever M, K and N are multiples of TPB = 16, and misbehaves on any other size. Find
// out why with `gpuzzle run 26`, then fix it here. Stuck? `gpuzzle hint 26`.
// FIX ME (roughly 6 lines to change)
extern "C" __global__ void fast_matmul(float* C, const float* A, const float* B, int M, int K, int N) {
    __shared__ float sA[TPB][TPB];
    __shared__ float sB[TPB][TPB];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int col = blockIdx.x * TPB + tx;
    int row = blockIdx.y * TPB + ty;

    // Quit if (row, col) is outside of C.
    if (row >= M && col >= N) {
        return;
    }

    // Each thread computes one element of C, as a sum over K split into TPB-long pieces.
    float tmp = 0.0f;
    int steps = (K + TPB - 1) / TPB;
    for (int i = 0; i < steps; i++) {
        // Preload one element of A and one of B into shared memory.
        sA[ty][tx] = A[row * K + i * TPB + tx];
        sB[ty][tx] = B[(i * TPB + ty) * N + col];
        // Wait until every thread has finished preloading.
        __syncthreads();
        // The partial product from the shared tiles.
        for (int j = 0; j < TPB; j++) {
            tmp += sA[ty][j] * sB[j][tx];
        }
        // Wait until every thread has finished computing before the tiles are reloaded.
        __syncthreads();
    }
    C[row * N + col] = tmp;
}
