// lazy: every thread atomically adds its element into its warp's output, no reduction at all
extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) {
        atomicAdd(&out[i / 32], a[i]);
    }
}
