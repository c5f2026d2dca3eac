// expect: fail
// kind: uninitialized-read
// line: @bug
// why: sums the two elements AFTER i instead of the two before; in the partly full last block the slot two after the last element was never written.
// help-has: i - 1 | local_i - 1 | i - 2 | local_i - 2 | before
// help-not: FLT_MAX
// help-not: when the condition fails
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
        if (local_i + 1 < TPB) sum += cache[local_i + 1];
        if (local_i + 2 < TPB) sum += cache[local_i + 2];  // @bug
        out[i] = sum;
    }
}
