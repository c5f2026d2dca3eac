// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: FLT_MAX | INFINITY
// help-not: store 0.0f
// why: drops the guard on the load and scans the whole tile; the slots past the end are read by
// why: the maximum, so they need a value no maximum keeps, not 0 (the data can be negative).
// Puzzle 32 · Debug: divergent barrier. out[b] = the largest element of block b's slice of a.
// FIX ME: this kernel is complete but has ONE bug. Run `gpuzzle run 32`, read what it reports, fix it.
extern "C" __global__ void block_max(float* out, const float* a, int size) {
    __shared__ float vals[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int me = threadIdx.x;
    vals[me] = a[i];  // @bug
    __syncthreads();
    if (me == 0) {
        float top = vals[0];
        for (int k = 1; k < TPB; k++) {
            top = fmaxf(top, vals[k]);
        }
        out[blockIdx.x] = top;
    }
}
