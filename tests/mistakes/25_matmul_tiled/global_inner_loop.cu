// expect: fail
// kind: over-budget
// counter: global_reads
// why: loads the tiles but then multiplies from global memory anyway.
// help-has: shared | tile
// help-not: guard the access
// Puzzle 25 · Tiled matrix multiply: out (M x N) = a (M x K) x b (K x N), 16 x 16 shared tiles.
extern "C" __global__ void matmul_tiled(float* out, const float* a, const float* b, int M, int K, int N) {
    __shared__ float a_tile[TPB][TPB];
    __shared__ float b_tile[TPB][TPB];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int col = blockIdx.x * TPB + tx;
    int row = blockIdx.y * TPB + ty;
    float sum = 0.0f;
    for (int t0 = 0; t0 < K; t0 += TPB) {
        for (int k = t0; k < t0 + TPB && k < K; k++) {
            if (row < M && col < N) sum += a[row * K + k] * b[k * N + col];
        }
    }
    if (row < M && col < N) {
        out[row * N + col] = sum;
    }
}
