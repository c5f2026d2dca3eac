// A __shared__ array declared inside a __noinline__ device function (NVRTC puts it in the .func).
__device__ __noinline__ float reverse_in_block(float v) {
    __shared__ float scratch[32];
    scratch[threadIdx.x] = v;
    __syncthreads();
    return scratch[31 - threadIdx.x];
}

extern "C" __global__ void func_shared(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = reverse_in_block(i < size ? a[i] : 0.0f);
    if (i < size) {
        out[i] = v;
    }
}
