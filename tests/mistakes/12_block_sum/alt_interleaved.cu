// expect: pass
// why: interleaved addressing (stride doubling) instead of sequential.
// Puzzle 12 · Block sum: out[blockIdx.x] = sum of this block's TPB elements of a.
extern "C" __global__ void block_sum(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    cache[local_i] = i < size ? a[i] : 0.0f;
    __syncthreads();
    for (int s = 1; s < TPB; s *= 2) {
        if (local_i % (2 * s) == 0) {
            cache[local_i] += cache[local_i + s];
        }
        __syncthreads();
    }
    if (local_i == 0) {
        out[blockIdx.x] = cache[0];
    }
}
