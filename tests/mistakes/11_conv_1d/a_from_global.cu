// expect: fail
// kind: over-budget
// counter: global_reads
// why: caches b but reads the window of a straight from global memory.
// help-has: shared
// help-not: guard the access
// Puzzle 11 · 1D convolution: out[i] = sum over j < b_size of a[i + j] * b[j] (terms past the end of a left out).
extern "C" __global__ void conv_1d(float* out, const float* a, const float* b, int a_size, int b_size) {
    __shared__ float a_cache[TPB_MAX_CONV];  // this block's TPB values of a, then the halo after them
    __shared__ float b_cache[MAX_CONV];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    if (local_i < b_size) {
        b_cache[local_i] = b[local_i];
    }
    __syncthreads();
    if (i < a_size) {
        float sum = 0.0f;
        for (int j = 0; j < b_size; j++) {
            if (i + j < a_size) {
                sum += a[i + j] * b_cache[j];
            }
        }
        out[i] = sum;
    }
}
