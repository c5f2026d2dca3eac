// expect: pass
// why: pads with __int_as_float(0xff800000)  /* -infinity */, the identity of max, and scans all TPB slots.
// Puzzle 32 · Debug: divergent barrier. out[b] = the largest element of block b's slice of a.
extern "C" __global__ void block_max(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    cache[local_i] = i < size ? a[i] : __int_as_float(0xff800000)  /* -infinity */;
    __syncthreads();
    if (local_i == 0) {
        float best = cache[0];
        for (int k = 1; k < TPB; k++) {
            best = fmaxf(best, cache[k]);
        }
        out[blockIdx.x] = best;
    }
}
