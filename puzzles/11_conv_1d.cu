// Puzzle 11 · 1D convolution: out[i] = sum over j < b_size of a[i + j] * b[j] (terms past the end of a left out).
// Check with `gpuzzle run 11`; stuck? `gpuzzle hint 11`.
extern "C" __global__ void conv_1d(float* out, const float* a, const float* b, int a_size, int b_size) {
    // FILL ME IN (roughly 20 lines), starting from:
    // __shared__ float a_cache[TPB_MAX_CONV];  // this block's TPB values of a, then the halo after them
    // __shared__ float b_cache[MAX_CONV];      // the filter's weights
    // int i = blockIdx.x * blockDim.x + threadIdx.x;
    // int local_i = threadIdx.x;
}
