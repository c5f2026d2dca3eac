// Dynamic shared memory (sized at launch) next to a static array: a block-wide reverse.
extern "C" __global__ void dyn_shared(float* out, const float* a, int size) {
    extern __shared__ float buf[];
    __shared__ int count;
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (t == 0) {
        count = 0;
    }
    buf[t] = i < size ? a[i] : 0.0f;
    __syncthreads();
    atomicAdd(&count, 1);
    __syncthreads();
    if (i < size) {
        out[i] = buf[blockDim.x - 1 - t] + count;
    }
}
