// expect: fail
// kind: shared-race
// line: @bug
// help-has: __syncthreads()
// help-has: not inside an if | outside | every thread
// why: turns the divergent __syncthreads() into a __syncwarp(), still inside the if: thread 0
// why: reads what the other warp stored, and the lanes past the end skip the warp barrier.
// Puzzle 32 · Debug: divergent barrier. out[b] = the largest element of block b's slice of a.
extern "C" __global__ void block_max(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    if (i < size) {
        cache[local_i] = a[i];
        __syncwarp();
    }
    if (local_i == 0) {
        // The block's elements are cache[0] to cache[count - 1].
        int count = min(TPB, size - blockIdx.x * TPB);
        float best = cache[0];
        for (int k = 1; k < count; k++) {
            best = fmaxf(best, cache[k]);  // @bug
        }
        out[blockIdx.x] = best;
    }
}
