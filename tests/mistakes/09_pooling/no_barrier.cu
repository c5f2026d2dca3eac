// expect: fail
// kind: shared-race
// line: @race
// help-has: __syncthreads()
// help-not: atomicAdd
// why: forgets the barrier between filling the cache and reading the neighbours.
// Puzzle 9 · Pooling: out[i] = a[i - 2] + a[i - 1] + a[i] (fewer terms at the start).
// Check with `gpuzzle run 9`; stuck? `gpuzzle hint 9`.
extern "C" __global__ void pooling(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    if (i < size) {
        cache[local_i] = a[i];
        float sum = cache[local_i];
        if (local_i >= 1) sum += cache[local_i - 1];  // @race
        if (local_i >= 2) sum += cache[local_i - 2];
        out[i] = sum;
    }
}
