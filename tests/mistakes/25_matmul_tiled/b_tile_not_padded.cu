// expect: fail
// kind: uninitialized-read
// line: @bug
// help-has: 0.0f | zero
// help-not: check the index
// why: pads the a tile with zeros, but leaves the b tile's elements past K unwritten.
// Puzzle 25 · Tiled matrix multiply: out (M x N) = a (M x K) times b (K x N), 16 x 16 shared tiles.
// Check with `gpuzzle run 25`; stuck? `gpuzzle hint 25`.
extern "C" __global__ void matmul_tiled(float* out, const float* a, const float* b, int M, int K, int N) {
    __shared__ float sa[TPB][TPB];
    __shared__ float sb[TPB][TPB];
    int cx = threadIdx.x;
    int cy = threadIdx.y;
    int gcol = blockIdx.x * TPB + cx;
    int grow = blockIdx.y * TPB + cy;
    float dot = 0.0f;
    for (int base = 0; base < K; base += TPB) {
        sa[cy][cx] = (grow < M && base + cx < K) ? a[grow * K + base + cx] : 0.0f;
        if (base + cy < K && gcol < N) {
            sb[cy][cx] = b[(base + cy) * N + gcol];
        }
        __syncthreads();
        for (int k = 0; k < TPB; k++) {
            dot += sa[cy][k] * sb[k][cx];  // @bug
        }
        __syncthreads();
    }
    if (grow < M && gcol < N) {
        out[grow * N + gcol] = dot;
    }
}
