// lazy: every thread atomicAdds its product into out[0]; no shared memory, no barrier.
extern "C" __global__ void dot_product(float* out, const float* a, const float* b, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) {
        atomicAdd(&out[0], a[i] * b[i]);
    }
}
