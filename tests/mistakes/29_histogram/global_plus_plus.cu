// expect: fail
// kind: global-race
// line: @bug
// help-has: atomicAdd
// help-not: __syncthreads()
// why: counts straight into global memory with a plain ++.
// Puzzle 29 · Histogram: hist[v] = how many elements of a equal v (a shared histogram per block).
extern "C" __global__ void histogram(unsigned int* hist, const unsigned int* a, int n, int bins) {
    __shared__ unsigned int block_hist[TPB];  // this block's counts; bins <= TPB
    int t = threadIdx.x;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) {
        hist[a[i]]++;  // @bug
    }
}
