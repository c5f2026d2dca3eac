// Puzzle 8 · Shared memory: out[i] = a[i] + 10, through a shared array.
// Check with `gpuzzle run 8`; stuck? `gpuzzle hint 8`.
extern "C" __global__ void shared_map(float* out, const float* a, int size) {
    // FILL ME IN (roughly 10 lines): uncomment this scaffold, then finish it.
    // __shared__ float cache[TPB];  // one slot per thread of this block
    // int i = blockIdx.x * blockDim.x + threadIdx.x;
    // int local_i = threadIdx.x;
    // if (i < size) {
    //     cache[local_i] = a[i];
    // }
    // __syncthreads();  // every thread of the block waits here, so cache is complete below
    // Now read your element back from cache, add 10, and write out[i].
}
