// expect: fail
// kind: over-budget
// counter: global_reads
// help-has: b_cache | shared
// help-has: b[j]
// why: the learner caches a but reads the weight b[j] from global memory in every step of the
// why: window; the fix loads b once into a shared array (threads 0 .. b_size-1) and reads it there.
// Puzzle 11 · 1D convolution: out[i] = sum over j < b_size of a[i + j] * b[j] (terms past the end of a left out).
extern "C" __global__ void conv_1d(float* out, const float* a, const float* b, int a_size, int b_size) {
    __shared__ float a_cache[TPB_MAX_CONV];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    a_cache[local_i] = i < a_size ? a[i] : 0.0f;
    if (local_i < b_size - 1) {
        int g = i + TPB;
        a_cache[local_i + TPB] = g < a_size ? a[g] : 0.0f;
    }
    __syncthreads();
    if (i < a_size) {
        float sum = 0.0f;
        for (int j = 0; j < b_size; j++) {
            sum += a_cache[local_i + j] * b[j];  // @bug
        }
        out[i] = sum;
    }
}
