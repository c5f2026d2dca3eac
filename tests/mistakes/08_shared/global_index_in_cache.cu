// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: cache[local_i]
// help-not: if (i < size)
// why: indexes the per-block shared array with the global index.
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
        out[i] = cache[i] + 10.0f;  // @bug
    }
}
