// expect: fail
// kind: shared-race
// line: @bug
// help-has: between two calls
// help-has: `reduce_block()`
// help-not: did not pass it together
// help-not: atomicAdd
// why: the helper (named otherwise) keeps the total in a local but reads it with no barrier before the return, so the second call's stores overwrite cache[0] first.
// Puzzle 18 · Device functions: per row, the sum S and the spread, the sum of |cols * x - S|.
__device__ float reduce_block(float mine, float* scratch) {
    int lane = threadIdx.x;
    scratch[lane] = mine;
    __syncthreads();
    for (int half = TPB / 2; half > 0; half >>= 1) {
        if (lane < half) {
            scratch[lane] += scratch[lane + half];
        }
        __syncthreads();
    }
    float total = scratch[0];  // @bug
    return total;
}

extern "C" __global__ void row_stats(float* out, const float* a, int rows, int cols) {
    __shared__ float cache[TPB];
    int row = blockIdx.x;
    int c = threadIdx.x;
    bool inside = c < cols;
    float x = inside ? a[row * cols + c] : 0.0f;
    float sum = reduce_block(x, cache);
    float d = inside ? fabsf(cols * x - sum) : 0.0f;
    float spread = reduce_block(d, cache);
    if (c == 0) {
        out[row * 2] = sum;
        out[row * 2 + 1] = spread;
    }
}
