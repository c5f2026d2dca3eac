// Puzzle 10 · Dot product: out[0] = sum of a[i] * b[i].
// Check with `gpuzzle run 10`; stuck? `gpuzzle hint 10`.
extern "C" __global__ void dot_product(float* out, const float* a, const float* b, int size) {
    // FILL ME IN (roughly 12 lines), starting from:
    // __shared__ float cache[TPB];
    // int i = blockIdx.x * blockDim.x + threadIdx.x;
    // int local_i = threadIdx.x;
}
