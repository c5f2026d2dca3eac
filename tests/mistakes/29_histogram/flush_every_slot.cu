// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: t < bins | bins
// help-not: atomicAdd(&block_hist
// why: the learner clears and flushes all TPB slots of the shared histogram, but hist has only
// why: `bins` entries: threads t >= bins add past its end. The fix flushes only when t < bins.
// Puzzle 29 · Histogram: hist[v] = how many elements of a equal v (a shared histogram per block).
extern "C" __global__ void histogram(unsigned int* hist, const unsigned int* a, int n, int bins) {
    __shared__ unsigned int local_counts[TPB];
    int tid = threadIdx.x;
    local_counts[tid] = 0;
    __syncthreads();
    for (int k = blockIdx.x * blockDim.x + tid; k < n; k += blockDim.x * gridDim.x) {
        atomicAdd(&local_counts[a[k]], 1u);
    }
    __syncthreads();
    atomicAdd(&hist[tid], local_counts[tid]);  // @bug
}
