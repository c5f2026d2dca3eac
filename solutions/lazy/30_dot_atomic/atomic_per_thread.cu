// lazy: every thread adds its own product to out[0] with a global atomicAdd; no block sum at all
extern "C" __global__ void dot_atomic(float* out, const float* a, const float* b, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) {
        atomicAdd(&out[0], a[i] * b[i]);
    }
}
