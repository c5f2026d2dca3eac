// expect: fail
// kind: uninitialized-read
// line: @bug
// help-has: 0 | zero
// help-not: atomicAdd
// why: counts into block_hist without clearing it first.
// Puzzle 29 · Histogram: hist[v] = how many elements of a equal v (a shared histogram per block).
extern "C" __global__ void histogram(unsigned int* hist, const unsigned int* a, int n, int bins) {
    __shared__ unsigned int block_hist[TPB];  // this block's counts; bins <= TPB
    int t = threadIdx.x;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) {
        atomicAdd(&block_hist[a[i]], 1u);  // @bug
    }
    __syncthreads();
    if (t < bins) {
        atomicAdd(&hist[t], block_hist[t]);
    }
}
