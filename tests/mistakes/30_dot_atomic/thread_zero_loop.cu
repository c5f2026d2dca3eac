// expect: fail
// kind: over-budget
// counter: shared_reads
// why: thread 0 adds the block's 64 products alone: 64 shared reads where the tree needs 13.
// help-has: tree | halv | stride
// help-not: guard the access
// Puzzle 30 · Dot product across blocks: out[0] = sum of a[i] * b[i], one atomicAdd per block.
extern "C" __global__ void dot_atomic(float* out, const float* a, const float* b, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    cache[local_i] = i < size ? a[i] * b[i] : 0.0f;
    __syncthreads();
    if (local_i == 0) {
        float total = 0.0f;
        for (int k = 0; k < TPB; k++) total += cache[k];
        atomicAdd(out, total);
    }
}
