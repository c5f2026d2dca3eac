// expect: pass
// why: zeroes every slot, and skips the global atomic for empty bins.
// Puzzle 29 · Histogram: hist[v] = how many elements of a equal v (a shared histogram per block).
extern "C" __global__ void histogram(unsigned int* hist, const unsigned int* a, int n, int bins) {
    __shared__ unsigned int block_hist[TPB];  // this block's counts; bins <= TPB
    int t = threadIdx.x;
    block_hist[t] = 0u;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) {
        atomicAdd(&block_hist[a[i]], 1u);
    }
    __syncthreads();
    unsigned int c = block_hist[t];
    if (t < bins && c > 0) {
        atomicAdd(&hist[t], c);
    }
}
