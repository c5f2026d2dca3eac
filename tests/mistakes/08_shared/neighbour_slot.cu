// expect: fail
// kind: uninitialized-read
// line: @bug
// why: reads the next slot of the cache (wrapping around) instead of its own; in the partly full last block that slot was never written.
// help-has: cache[local_i] | its own slot | own element
// help-not: when the condition fails
// Puzzle 8 · Shared memory: out[i] = a[i] + 10, through a shared array.
extern "C" __global__ void shared_map(float* out, const float* a, int size) {
    __shared__ float cache[TPB];  // one slot per thread of this block
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    if (i < size) {
        cache[local_i] = a[i];
    }
    __syncthreads();  // every thread of the block waits here, so cache is complete below
    if (i < size) {
        out[i] = cache[(local_i + 1) % TPB] + 10.0f;  // @bug
    }
}
