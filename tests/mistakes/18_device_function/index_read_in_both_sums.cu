// expect: fail
// kind: over-budget
// counter: global_reads
// why: passes a[idx] to both block sums, so each thread fetches its element from global memory
// why: twice; one register would hold it for the second sum.
// help-has: register | read it once
// help-not: guard the access
// help-not: __shared__
// Puzzle 18 · Device functions: per row, the sum S and the spread, the sum of |cols * x - S|.
__device__ float block_sum(float v, float* cache) {
    cache[threadIdx.x] = v;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half >>= 1) {
        if (threadIdx.x < half) cache[threadIdx.x] += cache[threadIdx.x + half];
        __syncthreads();
    }
    float r = cache[0];
    __syncthreads();
    return r;
}

extern "C" __global__ void row_stats(float* out, const float* a, int rows, int cols) {
    __shared__ float cache[TPB];
    int idx = blockIdx.x * cols + threadIdx.x;
    float total = block_sum(threadIdx.x < cols ? a[idx] : 0.0f, cache);
    float spread = block_sum(threadIdx.x < cols ? fabsf(cols * a[idx] - total) : 0.0f, cache);
    if (threadIdx.x == 0) {
        out[2 * blockIdx.x] = total;
        out[2 * blockIdx.x + 1] = spread;
    }
}
