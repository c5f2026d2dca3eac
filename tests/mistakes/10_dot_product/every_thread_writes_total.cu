// expect: fail
// kind: global-race
// line: @bug
// help-has: local_i == 0 | threadIdx.x == 0 | one thread
// help-not: atomicAdd
// why: every thread adds up the cache and writes the total.
// Puzzle 10 · Dot product: out[0] = sum of a[i] * b[i].
extern "C" __global__ void dot_product(float* out, const float* a, const float* b, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    cache[local_i] = i < size ? a[i] * b[i] : 0.0f;
    __syncthreads();
    float sum = 0.0f;
    for (int k = 0; k < TPB; k++) {
        sum += cache[k];
    }
    out[0] = sum;  // @bug
}
