// Tree reduction in shared memory: one partial sum per block.
#define TPB 64
extern "C" __global__ void reduce_shared(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x;
    cache[t] = i < size ? a[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            cache[t] += cache[t + s];
        }
        __syncthreads();
    }
    if (t == 0) {
        out[blockIdx.x] = cache[0];
    }
}
