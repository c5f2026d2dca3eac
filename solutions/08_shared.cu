// Puzzle 8 · Shared memory: reference solution.
extern "C" __global__ void shared_map(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    if (i < size) {
        cache[local_i] = a[i];
    }
    __syncthreads();
    if (i < size) {
        out[i] = cache[local_i] + 10.0f;
    }
}
