// Puzzle 9 · Pooling: out[i] = a[i - 2] + a[i - 1] + a[i] (fewer terms at the start).
// Check with `gpuzzle run 9`; stuck? `gpuzzle hint 9`.
extern "C" __global__ void pooling(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    // FILL ME IN (roughly 8 lines)
}
