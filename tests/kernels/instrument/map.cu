// One thread per element; `const __restrict__` makes NVRTC emit ld.global.nc.
extern "C" __global__ void map(float* out, const float* __restrict__ a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) {
        out[i] = a[i] + 10.0f;
    }
}
