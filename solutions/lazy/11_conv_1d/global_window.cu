// lazy: every thread reads its window of a and all of b straight from global memory.
extern "C" __global__ void conv_1d(float* out, const float* a, const float* b, int a_size, int b_size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < a_size) {
        float sum = 0.0f;
        for (int j = 0; j < b_size; j++) {
            if (i + j < a_size) {
                sum += a[i + j] * b[j];
            }
        }
        out[i] = sum;
    }
}
