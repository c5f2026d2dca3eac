// Puzzle 10 · Dot product: reference solution.
// Every thread stores its product in shared memory; thread 0 adds them up.
extern "C" __global__ void dot_product(float* out, const float* a, const float* b, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    cache[local_i] = i < size ? a[i] * b[i] : 0.0f;
    __syncthreads();
    if (local_i == 0) {
        float sum = 0.0f;
        for (int k = 0; k < TPB; k++) {
            sum += cache[k];
        }
        out[0] = sum;
    }
}
