// expect: fail
// kind: uninitialized-read
// line: @bug
// help-has: 0.0f | zero
// help-not: __syncthreads()
// why: guards the tile loads but leaves the slots outside the matrix unwritten.
// Puzzle 14 · Matrix multiply: out = a x b for size x size matrices stored row by row.
extern "C" __global__ void matmul(float* out, const float* a, const float* b, int size) {
    __shared__ float a_tile[TPB][TPB];
    __shared__ float b_tile[TPB][TPB];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int col = blockIdx.x * TPB + tx;
    int row = blockIdx.y * TPB + ty;
    float sum = 0.0f;
    for (int t0 = 0; t0 < size; t0 += TPB) {
        if (row < size && t0 + tx < size) a_tile[ty][tx] = a[row * size + t0 + tx];
        if (t0 + ty < size && col < size) b_tile[ty][tx] = b[(t0 + ty) * size + col];
        __syncthreads();
        for (int k = 0; k < TPB; k++) {
            sum += a_tile[ty][k] * b_tile[k][tx];  // @bug
        }
        __syncthreads();
    }
    if (row < size && col < size) {
        out[row * size + col] = sum;
    }
}
