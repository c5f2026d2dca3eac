// lazy: the helper with __syncwarp() where a block barrier is needed.
__device__ float block_sum(float v, float* cache) {
    int t = threadIdx.x;
    cache[t] = v;
    __syncwarp();
    for (int stride = TPB / 2; stride > 0; stride /= 2) {
        if (t < stride) {
            cache[t] += cache[t + stride];
        }
        __syncwarp();
    }
    float total = cache[0];
    __syncwarp();
    return total;
}

extern "C" __global__ void row_stats(float* out, const float* a, int rows, int cols) {
    __shared__ float cache[TPB];
    int row = blockIdx.x;
    int c = threadIdx.x;
    bool inside = c < cols;
    float x = inside ? a[row * cols + c] : 0.0f;
    float sum = block_sum(x, cache);
    float d = inside ? fabsf(cols * x - sum) : 0.0f;
    float spread = block_sum(d, cache);
    if (c == 0) {
        out[row * 2] = sum;
        out[row * 2 + 1] = spread;
    }
}
