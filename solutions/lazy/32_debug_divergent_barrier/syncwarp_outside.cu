// lazy: moves the barrier out of the if, but as __syncwarp(), which waits for one warp of the two
extern "C" __global__ void block_max(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    if (i < size) {
        cache[local_i] = a[i];
    }
    __syncwarp();
    if (local_i == 0) {
        // The block's elements are cache[0] to cache[count - 1].
        int count = min(TPB, size - blockIdx.x * TPB);
        float best = cache[0];
        for (int k = 1; k < count; k++) {
            best = fmaxf(best, cache[k]);
        }
        out[blockIdx.x] = best;
    }
}
