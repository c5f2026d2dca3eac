// lazy: each kept lane takes its slot with atomicAdd on the warp's count (order left to the scheduler)
extern "C" __global__ void compact(float* out, int* counts, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) {
        float v = a[i];
        if (v > 0.0f) {
            int slot = atomicAdd(&counts[blockIdx.x], 1);
            out[blockIdx.x * 32 + slot] = v;
        }
    }
}
