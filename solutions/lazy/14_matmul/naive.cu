// lazy: the naive matmul, one thread per output reading a row of a and a column of b from global memory.
extern "C" __global__ void matmul(float* out, const float* a, const float* b, int size) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < size && col < size) {
        float sum = 0.0f;
        for (int k = 0; k < size; k++) {
            sum += a[row * size + k] * b[k * size + col];
        }
        out[row * size + col] = sum;
    }
}
