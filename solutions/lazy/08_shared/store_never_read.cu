// lazy: keeps the scaffold's store into cache but adds 10 to a register copy, never reading cache.
extern "C" __global__ void shared_map(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    float v = 0.0f;
    if (i < size) {
        v = a[i];
        cache[local_i] = v;
    }
    __syncthreads();
    if (i < size) {
        out[i] = v + 10.0f;
    }
}
