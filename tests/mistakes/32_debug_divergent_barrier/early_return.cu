// expect: fail
// kind: barrier-divergence
// line: @bug
// help-has: return
// help-not: atomicAdd
// why: returns early for threads past the end instead of skipping the copy.
// Puzzle 32 · Debug: divergent barrier. out[b] = the largest element of block b's slice of a.
extern "C" __global__ void block_max(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    if (i >= size) return;
    cache[local_i] = a[i];
    __syncthreads();  // @bug
    if (local_i == 0) {
        // The block's elements are cache[0] to cache[count - 1].
        int count = min(TPB, size - blockIdx.x * TPB);
        float best = cache[0];
        for (int k = 1; k < count; k++) {
            best = fmaxf(best, cache[k]);
        }
        out[blockIdx.x] = best;
    }
}
