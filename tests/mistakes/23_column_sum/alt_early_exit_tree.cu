// expect: pass
// why: padding by if/else, the tree from blockDim.x.
// Puzzle 23 · Column sum: out[c] = sum of column c of a (rows x cols, rows <= TPB).
extern "C" __global__ void column_sum(float* out, const float* a, int rows, int cols) {
    __shared__ float cache[TPB];
    int col = blockIdx.x;
    int local_i = threadIdx.x;
    float v = 0.0f;
    if (local_i < rows) v = a[local_i * cols + col];
    cache[local_i] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s >= 1; s /= 2) {
        if (local_i < s) cache[local_i] += cache[local_i + s];
        __syncthreads();
    }
    if (local_i == 0) out[col] = cache[0];
}
