// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: <=
// help-not: if (i < size)
// why: the summing loop runs one slot past the end of cache.
// Puzzle 10 · Dot product: out[0] = sum of a[i] * b[i].
extern "C" __global__ void dot_product(float* out, const float* a, const float* b, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    cache[local_i] = i < size ? a[i] * b[i] : 0.0f;
    __syncthreads();
    if (local_i == 0) {
        float sum = 0.0f;
        for (int k = 0; k <= TPB; k++) {
            sum += cache[k];  // @bug
        }
        out[0] = sum;
    }
}
