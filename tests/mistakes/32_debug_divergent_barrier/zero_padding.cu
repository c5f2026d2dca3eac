// expect: fail
// kind: wrong-output
// why: pads with 0 and scans all TPB: a block of negative numbers gets 0 as its maximum.
// help-has: -FLT_MAX | -INFINITY | neutral | identity | negative
// help-not: guard the access
// Puzzle 32 · Debug: divergent barrier. out[b] = the largest element of block b's slice of a.
extern "C" __global__ void block_max(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    cache[local_i] = i < size ? a[i] : 0.0f;
    __syncthreads();
    if (local_i == 0) {
        float best = cache[0];
        for (int k = 1; k < TPB; k++) {
            best = fmaxf(best, cache[k]);
        }
        out[blockIdx.x] = best;
    }
}
