// expect: fail
// kind: shared-race
// line: @bug
// help-has: __syncthreads()
// help-not: atomicAdd
// why: thread 0 starts adding before the other threads have stored their products.
// Puzzle 10 · Dot product: out[0] = sum of a[i] * b[i].
extern "C" __global__ void dot_product(float* out, const float* a, const float* b, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    cache[local_i] = i < size ? a[i] * b[i] : 0.0f;
    if (local_i == 0) {
        float sum = 0.0f;
        for (int k = 0; k < TPB; k++) {
            sum += cache[k];  // @bug
        }
        out[0] = sum;
    }
}
