// expect: pass
// why: each warp adds up its products with full-mask shuffles, lane 0 of each warp stores the warp's sum, one barrier, thread 0 adds the warps' sums
extern "C" __global__ void dot_product(float* out, const float* a, const float* b, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    float v = i < size ? a[i] * b[i] : 0.0f;
    unsigned mask = __activemask();
    const int W = TPB < 32 ? TPB : 32;
    for (int d = W / 2; d > 0; d /= 2) {
        v += __shfl_down_sync(mask, v, d, W);
    }
    if (local_i % 32 == 0) cache[local_i / 32] = v;
    __syncthreads();
    if (local_i == 0) {
        float sum = 0.0f;
        for (int k = 0; k < (TPB + 31) / 32; k++) {
            sum += cache[k];
        }
        out[0] = sum;
    }
}
