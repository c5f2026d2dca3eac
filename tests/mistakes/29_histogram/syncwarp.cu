// expect: fail
// kind: shared-race
// line: @bug
// help-has: __syncthreads()
// help-not: atomicAdd(&block_hist
// why: the privatized histogram with __syncwarp() for both barriers: the block has two warps.
// Puzzle 29 · Histogram: hist[v] = how many elements of a equal v (a shared histogram per block).
extern "C" __global__ void histogram(unsigned int* hist, const unsigned int* a, int n, int bins) {
    __shared__ unsigned int block_hist[TPB];
    int t = threadIdx.x;
    if (t < bins) {
        block_hist[t] = 0;
    }
    __syncwarp();
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) {
        atomicAdd(&block_hist[a[i]], 1u);
    }
    __syncwarp();
    if (t < bins) {
        atomicAdd(&hist[t], block_hist[t]);  // @bug
    }
}
