// expect: fail
// kind: shared-race
// line: @bug
// help-has: atomicAdd
// help-not: __syncthreads()
// why: privatizes in shared memory, but with a plain ++: threads of the block lose counts.
// Puzzle 29 · Histogram: hist[v] = how many elements of a equal v (a shared histogram per block).
extern "C" __global__ void histogram(unsigned int* hist, const unsigned int* a, int n, int bins) {
    __shared__ unsigned int block_hist[TPB];  // this block's counts; bins <= TPB
    int t = threadIdx.x;
    if (t < bins) {
        block_hist[t] = 0;
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) {
        block_hist[a[i]]++;  // @bug
    }
    __syncthreads();
    if (t < bins) {
        atomicAdd(&hist[t], block_hist[t]);
    }
}
