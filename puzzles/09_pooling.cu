// Puzzle 9 · Pooling: out[i] = a[i - 2] + a[i - 1] + a[i] (fewer terms at the start).
// Check with `gpuzzle run 9`; stuck? `gpuzzle hint 9`.
extern "C" __global__ void pooling(float* out, const float* a, int size) {
    // FILL ME IN (roughly 12 lines), starting from:
    // __shared__ float cache[TPB + 2];  // cache[k] holds a[block_start - 2 + k]
    // int i = blockIdx.x * blockDim.x + threadIdx.x;
    // int local_i = threadIdx.x;
}
