// Puzzle 18 · Device functions: per row, the sum S and the spread, the sum of |cols * x - S|.
// Check with `gpuzzle run 18`; stuck? `gpuzzle hint 18`.

// Every thread of the block passes its value v; every thread gets back the block's total.
__device__ float block_sum(float v, float* cache) {
    // FILL ME IN (roughly 12 lines), starting with:
    //   int t = threadIdx.x;
    return 0.0f;
}

extern "C" __global__ void row_stats(float* out, const float* a, int rows, int cols) {
    // FILL ME IN (roughly 12 lines). You will need:
    //   __shared__ float cache[TPB];
    //   int row = blockIdx.x;
    //   int c = threadIdx.x;
    //   bool inside = c < cols;
}
