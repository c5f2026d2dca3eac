// lazy: every lane stores its keep flag in shared memory and counts the flags below it in a loop
extern "C" __global__ void compact(float* out, int* counts, const float* a, int size) {
    __shared__ int flags[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x;
    float v = i < size ? a[i] : 0.0f;
    bool keep = i < size && v > 0.0f;
    flags[lane] = keep ? 1 : 0;
    __syncthreads();
    int slot = 0;
    for (int k = 0; k < lane; k++) {
        slot += flags[k];
    }
    if (keep) {
        out[blockIdx.x * 32 + slot] = v;
    }
    if (lane == 31) {
        counts[blockIdx.x] = slot + (keep ? 1 : 0);
    }
}
