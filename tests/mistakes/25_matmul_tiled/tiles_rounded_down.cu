// expect: fail
// kind: wrong-output
// help-has: t0 < K | last tile | partial
// why: held-out (stop 44): the tile loop only runs over whole tiles (t0 + TPB <= K): the partial last tile of K is dropped
// Puzzle 25 · Tiled matrix multiply: out (M x N) = a (M x K) times b (K x N), 16 x 16 shared tiles.
extern "C" __global__ void matmul_tiled(float* out, const float* a, const float* b, int M, int K, int N) {
    __shared__ float a_tile[TPB][TPB];
    __shared__ float b_tile[TPB][TPB];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int col = blockIdx.x * TPB + tx;
    int row = blockIdx.y * TPB + ty;
    float sum = 0.0f;
    for (int t0 = 0; t0 + TPB <= K; t0 += TPB) {
        // Zero padding outside a matrix: those products add nothing.
        a_tile[ty][tx] = (row < M && t0 + tx < K) ? a[row * K + t0 + tx] : 0.0f;
        b_tile[ty][tx] = (t0 + ty < K && col < N) ? b[(t0 + ty) * N + col] : 0.0f;
        __syncthreads();  // the tiles are complete before anyone reads them
        for (int k = 0; k < TPB; k++) {
            sum += a_tile[ty][k] * b_tile[k][tx];
        }
        __syncthreads();  // nobody overwrites a tile while another thread still reads it
    }
    if (row < M && col < N) {
        out[row * N + col] = sum;
    }
}
