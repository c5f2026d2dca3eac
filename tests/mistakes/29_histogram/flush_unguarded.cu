// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: t < bins
// help-not: atomicAdd
// why: zeroes all TPB slots, and flushes all of them too: hist has only bins entries.
// Puzzle 29 · Histogram: hist[v] = how many elements of a equal v (a shared histogram per block).
extern "C" __global__ void histogram(unsigned int* hist, const unsigned int* a, int n, int bins) {
    __shared__ unsigned int block_hist[TPB];  // this block's counts; bins <= TPB
    int t = threadIdx.x;
    block_hist[t] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) {
        atomicAdd(&block_hist[a[i]], 1u);
    }
    __syncthreads();
    atomicAdd(&hist[t], block_hist[t]);  // @bug
}
