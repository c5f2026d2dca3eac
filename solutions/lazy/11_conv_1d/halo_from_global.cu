// lazy: caches the block's own values of a and b, but reads the halo past the block from global memory.
extern "C" __global__ void conv_1d(float* out, const float* a, const float* b, int a_size, int b_size) {
    __shared__ float a_cache[TPB_MAX_CONV];
    __shared__ float b_cache[MAX_CONV];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    a_cache[local_i] = i < a_size ? a[i] : 0.0f;
    if (local_i < b_size) {
        b_cache[local_i] = b[local_i];
    }
    __syncthreads();
    if (i < a_size) {
        float sum = 0.0f;
        for (int j = 0; j < b_size; j++) {
            if (i + j < a_size) {
                float v = local_i + j < TPB ? a_cache[local_i + j] : a[i + j];
                sum += v * b_cache[j];
            }
        }
        out[i] = sum;
    }
}
