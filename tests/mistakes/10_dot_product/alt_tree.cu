// expect: pass
// why: the tree of puzzle 12 instead of thread 0 adding all 8.
// Puzzle 10 · Dot product: out[0] = sum of a[i] * b[i].
extern "C" __global__ void dot_product(float* out, const float* a, const float* b, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    cache[local_i] = i < size ? a[i] * b[i] : 0.0f;
    __syncthreads();
    for (int s = TPB / 2; s > 0; s /= 2) {
        if (local_i < s) {
            cache[local_i] += cache[local_i + s];
        }
        __syncthreads();
    }
    if (local_i == 0) {
        out[0] = cache[0];
    }
}
