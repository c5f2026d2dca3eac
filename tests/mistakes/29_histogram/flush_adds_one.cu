// expect: fail
// kind: wrong-output
// help-has: block_hist[t]
// why: held-out (stop 44): the flush adds 1 per bin instead of the block count block_hist[t]
// Puzzle 29 · Histogram: hist[v] = how many elements of a equal v (a shared histogram per block).
extern "C" __global__ void histogram(unsigned int* hist, const unsigned int* a, int n, int bins) {
    __shared__ unsigned int block_hist[TPB];  // this block's counts; bins <= TPB
    int t = threadIdx.x;
    // Shared memory starts with leftovers, not zeros.
    if (t < bins) {
        block_hist[t] = 0;
    }
    __syncthreads();
    // Grid-stride loop: the grid has fewer threads than the array has elements.
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) {
        atomicAdd(&block_hist[a[i]], 1u);  // only this block's threads compete here
    }
    __syncthreads();
    // One global atomic per bin per block: other blocks add into the same bins.
    if (t < bins) {
        atomicAdd(&hist[t], 1u);
    }
}
