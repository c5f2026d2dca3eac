// expect: fail
// kind: over-budget
// counter: block_budget:global_atomics
// why: one atomicAdd per thread into out[0], no block sum: 64 global atomics per block on one
// why: address where the puzzle's block_budget allows 1.
// help-has: one atomic per block | thread 0 | one thread of the block | whole block | block sum | inside the block
// help-not: guard the access
// Puzzle 30 · Dot product across blocks: out[0] = sum of a[i] * b[i], one atomicAdd per block.
extern "C" __global__ void dot_atomic(float* out, const float* a, const float* b, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    if (i < size) {
        atomicAdd(&out[0], a[i] * b[i]);
    }
}
