// expect: fail
// kind: wrong-output
// why: `local_i > 1` drops the first neighbour of thread 1.
// help-has: >= 1 | > 0 | local_i > 1 | thread 1
// help-not: __syncthreads()
// Puzzle 9 · Pooling: out[i] = a[i - 2] + a[i - 1] + a[i] (fewer terms at the start).
extern "C" __global__ void pooling(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    if (i < size) {
        cache[local_i] = a[i];
    }
    __syncthreads();
    if (i < size) {
        float sum = cache[local_i];
        if (local_i > 1) sum += cache[local_i - 1];
        if (local_i > 1) sum += cache[local_i - 2];
        out[i] = sum;
    }
}
