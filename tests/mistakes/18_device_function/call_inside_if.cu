// expect: fail
// kind: barrier-divergence
// line: @bug
// help-has: every thread | all threads | outside | out of the if
// help-not: atomicAdd
// why: only the threads with an element call the helper, and its barriers.
// Puzzle 18 · Device functions: per row, the sum S and the spread, the sum of |cols * x - S|.
__device__ float block_sum(float v, float* cache) {
    int t = threadIdx.x;
    cache[t] = v;
    __syncthreads();  // @bug
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
    float sum = 0.0f, spread = 0.0f;
    if (inside) {
        float x = a[row * cols + c];
        sum = block_sum(x, cache);
        float d = fabsf(cols * x - sum);
        spread = block_sum(d, cache);
    }
    if (c == 0) {
        out[row * 2] = sum;
        out[row * 2 + 1] = spread;
    }
}
