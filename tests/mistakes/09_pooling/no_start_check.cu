// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: local_i >= 1 | local_i >= 2 | local_i - 1 >= 0 | local_i > 0 | negative
// help-not: guard the access with a bounds check
// why: forgets that threads 0 and 1 have fewer neighbours: reads cache[-1].
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
        out[i] = cache[local_i - 2] + cache[local_i - 1] + cache[local_i];  // @bug
    }
}
