// expect: fail
// kind: global-race
// line: @bug
// help-has: out[i]
// help-not: atomicAdd
// help-not: __threadfence
// why: writes out with the block-local index: block 1 overwrites block 0.
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
        out[local_i] = cache[local_i] + 10.0f;  // @bug
    }
}
