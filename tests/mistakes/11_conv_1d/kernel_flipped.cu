// expect: fail
// kind: wrong-output
// help-has: b_cache[j] | b_size - 1 - j
// why: held-out (stop 44): a true convolution: the weights are read in reverse, where the puzzle asks for out[i] = sum a[i + j] * b[j]
// Puzzle 11 · 1D convolution: out[i] = sum over j < b_size of a[i + j] * b[j] (terms past the end of a left out).
// Threads 0 .. b_size-1 also load b; the last b_size-1 threads also load the halo
// after the block's part of a. With b_size <= MAX_CONV <= TPB / 2 the two groups
// never overlap, so no thread makes more than 2 global reads.
extern "C" __global__ void conv_1d(float* out, const float* a, const float* b, int a_size, int b_size) {
    __shared__ float a_cache[TPB_MAX_CONV];
    __shared__ float b_cache[MAX_CONV];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    int halo = b_size - 1;

    a_cache[local_i] = i < a_size ? a[i] : 0.0f;
    if (local_i < b_size) {
        b_cache[local_i] = b[local_i];
    }
    if (local_i >= TPB - halo) {
        int g = i + halo;
        a_cache[local_i + halo] = g < a_size ? a[g] : 0.0f;
    }
    __syncthreads();

    if (i < a_size) {
        float sum = 0.0f;
        for (int j = 0; j < b_size; j++) {
            sum += a_cache[local_i + j] * b_cache[b_size - 1 - j];
        }
        out[i] = sum;
    }
}
