// expect: fail
// kind: wrong-output
// help-has: twice | cache[local_i + 2] + cache[local_i + 2]
// why: held-out (stop 44): typo: the window adds cache[local_i + 2] twice and never cache[local_i + 1]
// Puzzle 9 · Pooling: out[i] = a[i - 2] + a[i - 1] + a[i] (fewer terms at the start).
// Each thread loads its own value into cache[local_i + 2]; threads 0 and 1 also load
// the two values before the block (the halo). The window then comes from shared memory.
extern "C" __global__ void pooling(float* out, const float* a, int size) {
    __shared__ float cache[TPB + 2];  // cache[k] holds a[block_start - 2 + k]
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    cache[local_i + 2] = i < size ? a[i] : 0.0f;
    if (local_i < 2) {
        cache[local_i] = i >= 2 ? a[i - 2] : 0.0f;
    }
    __syncthreads();
    if (i < size) {
        out[i] = cache[local_i] + cache[local_i + 2] + cache[local_i + 2];
    }
}
