// expect: pass
// why: a loop over the window instead of three named reads, with the halo before the block.
extern "C" __global__ void pooling(float* out, const float* a, int size) {
    __shared__ float cache[TPB + 2];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    if (i < size) {
        cache[local_i + 2] = a[i];
    }
    if (local_i < 2) {
        cache[local_i] = i >= 2 ? a[i - 2] : 0.0f;
    }
    __syncthreads();
    if (i < size) {
        float sum = 0.0f;
        for (int k = local_i; k <= local_i + 2; k++) {
            sum += cache[k];
        }
        out[i] = sum;
    }
}
