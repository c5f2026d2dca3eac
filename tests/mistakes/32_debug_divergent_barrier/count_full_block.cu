// expect: fail
// kind: uninitialized-read
// line: @bug
// help-has: count | size
// help-not: __syncthreads()
// why: barrier fixed, but thread 0 scans all TPB slots, also those nobody filled.
// Puzzle 32 · Debug: divergent barrier. out[b] = the largest element of block b's slice of a.
extern "C" __global__ void block_max(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    if (i < size) {
        cache[local_i] = a[i];
    }
    __syncthreads();
    if (local_i == 0) {
        float best = cache[0];
        for (int k = 1; k < TPB; k++) {
            best = fmaxf(best, cache[k]);  // @bug
        }
        out[blockIdx.x] = best;
    }
}
