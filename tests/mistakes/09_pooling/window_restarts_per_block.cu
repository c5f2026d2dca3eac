// expect: fail
// kind: wrong-output
// why: the one-block answer: the window restarts at each block's edge (guards on local_i, no halo), so the first two outputs of every later block miss the values before the block.
// help-has: global index | halo | before the block | block's edge | previous block
// help-not: __syncthreads()
// Puzzle 9 · Pooling: out[i] = a[i - 2] + a[i - 1] + a[i] (fewer terms at the start).
extern "C" __global__ void pooling(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    if (i < size) {
        cache[local_i] = a[i];
    }
    __syncthreads();
    if (i < size) {
        float sum = cache[local_i];
        if (local_i >= 1) sum += cache[local_i - 1];
        if (local_i >= 2) sum += cache[local_i - 2];
        out[i] = sum;
    }
}
