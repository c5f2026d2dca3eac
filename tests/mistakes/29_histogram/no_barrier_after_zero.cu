// expect: fail
// kind: shared-race
// line: @bug
// help-has: __syncthreads()
// help-not: atomicAdd(&hist
// why: clears the bins but starts counting before every bin is cleared.
// Puzzle 29 · Histogram: hist[v] = how many elements of a equal v (a shared histogram per block).
extern "C" __global__ void histogram(unsigned int* hist, const unsigned int* a, int n, int bins) {
    __shared__ unsigned int block_hist[TPB];  // this block's counts; bins <= TPB
    int t = threadIdx.x;
    if (t < bins) {
        block_hist[t] = 0;
    }
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) {
        atomicAdd(&block_hist[a[i]], 1u);  // @bug
    }
    __syncthreads();
    if (t < bins) {
        atomicAdd(&hist[t], block_hist[t]);
    }
}
