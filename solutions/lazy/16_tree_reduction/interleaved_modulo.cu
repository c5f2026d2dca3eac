// lazy: the interleaved tree with a modulo test, every other active thread spread over each warp
extern "C" __global__ void tree_reduction(float* out, const float* a, int size) {
    __shared__ float part[TPB];
    int tid = threadIdx.x;
    int lo = blockIdx.x * 2 * TPB + tid;
    float x = lo < size ? a[lo] : 0.0f;
    if (lo + TPB < size) x += a[lo + TPB];
    part[tid] = x;
    __syncthreads();
    for (int step = 1; step < TPB; step *= 2) {
        if (tid % (2 * step) == 0) part[tid] += part[tid + step];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = part[0];
}
