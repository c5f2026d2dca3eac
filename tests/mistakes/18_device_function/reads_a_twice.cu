// expect: fail
// kind: over-budget
// counter: global_reads
// why: reads its element again for the second sum instead of keeping it in a register.
// help-has: register | keep
// help-not: guard the access
// Puzzle 18 · Device functions: per row, the sum S and the spread, the sum of |cols * x - S|.
__device__ float block_sum(float v, float* cache) {
    int t = threadIdx.x;
    cache[t] = v;
    __syncthreads();
    for (int stride = TPB / 2; stride > 0; stride /= 2) {
        if (t < stride) {
            cache[t] += cache[t + stride];
        }
        __syncthreads();
    }
    float total = cache[0];
    __syncthreads();
    return total;
}

extern "C" __global__ void row_stats(float* out, const float* a, int rows, int cols) {
    __shared__ float cache[TPB];
    int row = blockIdx.x;
    int c = threadIdx.x;
    bool inside = c < cols;
    float sum = block_sum(inside ? a[row * cols + c] : 0.0f, cache);
    float d = inside ? fabsf(cols * a[row * cols + c] - sum) : 0.0f;
    float spread = block_sum(d, cache);
    if (c == 0) {
        out[row * 2] = sum;
        out[row * 2 + 1] = spread;
    }
}
