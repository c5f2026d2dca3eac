// lazy: loads the tiles into shared memory, but the inner loop still reads a and b from global memory.
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
        for (int k = t0; k < t0 + TPB && k < size; k++) {
            if (row < size && col < size) {
                sum += a[row * size + k] * b[k * size + col];
            }
        }
        __syncthreads();
    }
    if (row < size && col < size) {
        out[row * size + col] = sum;
    }
}
