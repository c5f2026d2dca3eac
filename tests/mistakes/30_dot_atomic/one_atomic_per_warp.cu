// expect: fail
// kind: over-budget
// counter: block_budget:global_atomics
// why: sums each warp with shuffles and lets every warp's lane 0 add to out: 2 atomics a block.
// help-has: one atomic per block | thread 0 | one thread of the block | s[0] | cache[0] | whole block
// help-not: guard the access
// Puzzle 30 · Dot product across blocks: out[0] = sum of a[i] * b[i], one atomicAdd per block.
// Check with `gpuzzle run 30`; stuck? `gpuzzle hint 30`.
extern "C" __global__ void dot_atomic(float* out, const float* a, const float* b, int size) {
    __shared__ float prod[TPB];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int me = threadIdx.x;
    prod[me] = g < size ? a[g] * b[g] : 0.0f;
    __syncthreads();
    float v = prod[me];
    for (int d = 16; d > 0; d /= 2) {
        v += __shfl_down_sync(0xffffffff, v, d);
    }
    if (me % 32 == 0) {
        atomicAdd(out, v);
    }
}
