// expect: fail
// kind: shared-race
// line: @bug
// help-has: __syncthreads()
// help-not: inside the if
// why: zeroes the shared bins and counts into them, but flushes them to global memory without a
// why: barrier after the counting: a bin can be read while other threads still add to it.
// Puzzle 29 · Histogram: hist[v] = how many elements of a equal v (a shared histogram per block).
// Check with `gpuzzle run 29`; stuck? `gpuzzle hint 29`.
extern "C" __global__ void histogram(unsigned int* hist, const unsigned int* a, int n, int bins) {
    __shared__ unsigned int local[TPB];
    int me = threadIdx.x;
    if (me < bins) {
        local[me] = 0;
    }
    __syncthreads();
    for (int j = blockIdx.x * blockDim.x + me; j < n; j += blockDim.x * gridDim.x) {
        atomicAdd(&local[a[j]], 1u);
    }
    if (me < bins) {
        atomicAdd(&hist[me], local[me]);  // @bug
    }
}
