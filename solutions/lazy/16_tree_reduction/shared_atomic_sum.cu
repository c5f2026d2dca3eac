// lazy: every thread adds its two values into one shared float with atomicAdd, no tree
extern "C" __global__ void tree_reduction(float* out, const float* a, int size) {
    __shared__ float total;
    int t = threadIdx.x;
    int base = blockIdx.x * 2 * TPB;
    if (t == 0) total = 0.0f;
    __syncthreads();
    float v = base + t < size ? a[base + t] : 0.0f;
    if (base + t + TPB < size) v += a[base + t + TPB];
    atomicAdd(&total, v);
    for (int k = 0; k < 5; k++) __syncthreads();
    if (t == 0) out[blockIdx.x] = total;
}
