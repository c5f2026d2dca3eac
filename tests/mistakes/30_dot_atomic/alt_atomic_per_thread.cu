// expect: pass
// why: one atomicAdd per thread, no shared memory: slower on a GPU (64x the atomics on one
// why: address), but within this puzzle's per-thread budget (3 global reads, 1 write).
// why: PENDING: once `block_budget = { global_atomics = 1 }` is in force this attempt fails:
// why: rename it atomic_per_thread.cu with `expect: fail`, `kind: over-budget`,
// why: `counter: global_atomics` (the lazy kernel solutions/lazy/30_dot_atomic/atomic_per_thread.cu).
// Puzzle 30 · Dot product across blocks: out[0] = sum of a[i] * b[i], one atomicAdd per block.
extern "C" __global__ void dot_atomic(float* out, const float* a, const float* b, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    if (i < size) {
        atomicAdd(&out[0], a[i] * b[i]);
    }
}
