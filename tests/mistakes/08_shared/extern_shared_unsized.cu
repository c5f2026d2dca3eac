// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: extern __shared__
// help-has: __shared__ float cache[N]
// help-not: ``
// help-not: check the index
// why: the cache declared as dynamic shared memory, which this puzzle's launch does not give.
// Puzzle 8 · Shared memory: out[i] = a[i] + 10, through a shared array.
extern "C" __global__ void shared_map(float* out, const float* a, int size) {
    extern __shared__ float cache[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    if (i < size) {
        cache[local_i] = a[i];  // @bug
    }
    __syncthreads();
    if (i < size) {
        out[i] = cache[local_i] + 10.0f;
    }
}
