// expect: fail
// kind: over-budget
// counter: shared_writes
// why: adds 10 in shared memory first: a second shared write.
// help-has: register | once | one write
// help-not: guard the access
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
        cache[local_i] += 10.0f;
        out[i] = cache[local_i];
    }
}
