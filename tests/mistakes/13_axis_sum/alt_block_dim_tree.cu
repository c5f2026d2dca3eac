// expect: pass
// why: the tree sized from blockDim.x, the padding written with an if/else.
// Puzzle 13 · Axis sum: out[r] = sum of row r of a (BATCH rows of size elements).
extern "C" __global__ void axis_sum(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int row = blockIdx.y;
    int local_i = threadIdx.x;
    if (local_i < size) {
        cache[local_i] = a[row * size + local_i];
    } else {
        cache[local_i] = 0.0f;
    }
    __syncthreads();
    for (unsigned int s = blockDim.x >> 1; s > 0; s >>= 1) {
        if (local_i < s) {
            cache[local_i] += cache[local_i + s];
        }
        __syncthreads();
    }
    if (local_i == 0) {
        out[row] = cache[0];
    }
}
