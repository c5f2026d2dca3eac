// expect: fail
// kind: over-budget
// counter: global_reads
// why: correct with one global atomic per element, but over the budget the privatized version meets.
// help-has: shared | privat | block's histogram
// help-not: guard the access
// Puzzle 29 · Histogram: hist[v] = how many elements of a equal v (a shared histogram per block).
extern "C" __global__ void histogram(unsigned int* hist, const unsigned int* a, int n, int bins) {
    __shared__ unsigned int block_hist[TPB];  // this block's counts; bins <= TPB
    int t = threadIdx.x;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) {
        atomicAdd(&hist[a[i]], 1u);
    }
}
