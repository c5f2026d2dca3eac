// expect: fail
// kind: shared-race
// line: @bug
// help-has: __syncthreads()
// help-has: after | end of | overwrit | next tile | next step | reload
// help-not: __syncwarp
// why: one barrier after the loads, none after the partial products: the next step overwrites
// why: tiles that slower threads still read.
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
        a_tile[ty][tx] = (row < size && t0 + tx < size) ? a[row * size + t0 + tx] : 0.0f;
        b_tile[ty][tx] = (t0 + ty < size && col < size) ? b[(t0 + ty) * size + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TPB; k++) {
            sum += a_tile[ty][k] * b_tile[k][tx];  // @bug
        }
    }
    if (row < size && col < size) {
        out[row * size + col] = sum;
    }
}
