// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: i < size
// help-not: 0.0f
// help-not: FLT_MAX
// why: drops the guard on the load; thread 0 scans only the block's count elements, so the slots
// why: past the end are never read: the guard is the whole fix, no padding value needed.
// Puzzle 32 · Debug: divergent barrier. out[b] = the largest element of block b's slice of a.
// FIX ME: this kernel is complete but has ONE bug. Run `gpuzzle run 32`, read what it reports, fix it.
extern "C" __global__ void block_max(float* out, const float* a, int size) {
    __shared__ float vals[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int me = threadIdx.x;
    vals[me] = a[i];  // @bug
    __syncthreads();
    if (me == 0) {
        int count = min(TPB, size - blockIdx.x * TPB);
        float top = vals[0];
        for (int k = 1; k < count; k++) {
            top = fmaxf(top, vals[k]);
        }
        out[blockIdx.x] = top;
    }
}
