// expect: fail
// kind: shared-race
// line: @race
// help-has: put __syncthreads() after line
// help-not: already
// help-not: did not pass it together
// why: the barrier sits in an #ifndef that the file's own #define compiles out.
// Puzzle 9 · Pooling: out[i] = a[i - 2] + a[i - 1] + a[i] (fewer terms at the start).
#define QUICK_TEST 1
extern "C" __global__ void pooling(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    cache[local_i] = i < size ? a[i] : 0.0f;
#ifndef QUICK_TEST
    __syncthreads();
#endif
    if (i < size) {
        float sum = cache[local_i];
        if (local_i >= 1) sum += cache[local_i - 1];  // @race
        if (local_i >= 2) sum += cache[local_i - 2];
        out[i] = sum;
    }
}
