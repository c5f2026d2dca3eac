// expect: fail
// kind: shared-race
// line: @bug
// help-has: __syncthreads()
// help-has: return | after reading | before the next | next call | reuse | total
// help-has: between two calls
// help-not: did not pass it together
// help-not: atomicAdd
// why: the trap of the puzzle: returns cache[0] while the second call already overwrites cache.
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
    return cache[0];  // @bug
}

extern "C" __global__ void row_stats(float* out, const float* a, int rows, int cols) {
    __shared__ float cache[TPB];
    int row = blockIdx.x;
    int c = threadIdx.x;
    bool inside = c < cols;
    float x = inside ? a[row * cols + c] : 0.0f;
    float sum = block_sum(x, cache);
    float d = inside ? fabsf(cols * x - sum) : 0.0f;
    float spread = block_sum(d, cache);
    if (c == 0) {
        out[row * 2] = sum;
        out[row * 2 + 1] = spread;
    }
}
