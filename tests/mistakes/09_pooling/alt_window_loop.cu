// expect: pass
// why: a loop over the window instead of two ifs.
extern "C" __global__ void pooling(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    if (i < size) {
        cache[local_i] = a[i];
    }
    __syncthreads();
    if (i < size) {
        float sum = 0.0f;
        for (int k = max(local_i - 2, 0); k <= local_i; k++) {
            sum += cache[k];
        }
        out[i] = sum;
    }
}
