// lazy: the first thread of each row adds its row serially, then thread 0 adds the row sums serially.
extern "C" __global__ void reduce_2d(float* out, const float* a, int rows, int cols) {
    __shared__ float s[TPB_Y][TPB_X];
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    float v = (row < rows && col < cols) ? a[row * cols + col] : 0.0f;
    s[ty][tx] = v;
    __syncthreads();
    if (tx == 0) {
        for (int k = 1; k < TPB_X; k++) {
            v += s[ty][k];
        }
        s[ty][0] = v;
    }
    __syncthreads();
    if (tx == 0 && ty == 0) {
        for (int r = 1; r < TPB_Y; r++) {
            v += s[r][0];
        }
        out[blockIdx.y * gridDim.x + blockIdx.x] = v;
    }
}
