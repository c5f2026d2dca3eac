// lazy: every thread stores its element, then thread 0 adds the block's 64 slots one after the other.
extern "C" __global__ void reduce_2d(float* out, const float* a, int rows, int cols) {
    __shared__ float s[TPB_Y * TPB_X];
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.y * TPB_X + threadIdx.x;
    float v = (row < rows && col < cols) ? a[row * cols + col] : 0.0f;
    s[t] = v;
    __syncthreads();
    if (t == 0) {
        for (int k = 1; k < TPB_X * TPB_Y; k++) {
            v += s[k];
        }
        out[blockIdx.y * gridDim.x + blockIdx.x] = v;
    }
}
