// expect: fail
// kind: over-budget
// counter: block_budget:global_atomics
// why: counts every element straight into the global histogram, the value first read into a
// why: local; right, but one global atomic per element where a block's shared counts are meant.
// help-has: private histogram | shared memory
// help-not: guard the access
// help-not: __reduce_add_sync
// Puzzle 29 · Histogram: hist[v] = how many elements of a equal v (a shared histogram per block).
extern "C" __global__ void histogram(unsigned int* hist, const unsigned int* a, int n, int bins) {
    int step = blockDim.x * gridDim.x;
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    while (k < n) {
        unsigned int v = a[k];
        atomicAdd(&hist[v], 1u);
        k += step;
    }
}
