// expect: fail
// kind: over-budget
// counter: global_reads
// why: correct sums, but every thread reads its three inputs from global memory.
// help-has: shared
// help-not: guard the access
// Puzzle 9 · Pooling: out[i] = a[i - 2] + a[i - 1] + a[i] (fewer terms at the start).
extern "C" __global__ void pooling(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    if (i < size) {
        float sum = a[i];
        if (i >= 1) sum += a[i - 1];
        if (i >= 2) sum += a[i - 2];
        out[i] = sum;
    }
}
