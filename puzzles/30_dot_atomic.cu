// Puzzle 30 · Dot product across blocks: out[0] = sum of a[i] * b[i], one atomicAdd per block.
// Check with `gpuzzle run 30`; stuck? `gpuzzle hint 30`.
extern "C" __global__ void dot_atomic(float* out, const float* a, const float* b, int size) {
    // FILL ME IN (roughly 14 lines). A start:
    //     __shared__ float cache[TPB];
    //     int i = blockIdx.x * blockDim.x + threadIdx.x;
    //     int local_i = threadIdx.x;
}
