// expect: fail
// kind: shared-race
// line: @bug
// help-has: __syncthreads()
// help-not: atomicAdd
// why: reads the neighbour's slot (to shift the data) before waiting for it to be written.
// Puzzle 8 · Shared memory: out[i] = a[i] + 10, through a shared array.
extern "C" __global__ void shared_map(float* out, const float* a, int size) {
    __shared__ float cache[TPB];  // one slot per thread of this block
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    if (i < size) {
        cache[local_i] = a[i];
    }
    float mine = cache[TPB - 1 - local_i];  // @bug
    __syncthreads();
    if (i < size) {
        out[blockIdx.x * blockDim.x + TPB - 1 - local_i] = mine + 10.0f;
    }
}
