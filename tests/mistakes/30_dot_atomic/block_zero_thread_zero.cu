// expect: fail
// kind: wrong-output
// why: `if (blockIdx.x == 0 && threadIdx.x == 0)`: only block 0's total is added, the other blocks reduce for nothing.
// help-has: each block | one thread of each block | threadIdx.x == 0
// help-not: guard the access
// Puzzle 30 · Dot product across blocks: out[0] = sum of a[i] * b[i], one atomicAdd per block.
extern "C" __global__ void dot_atomic(float* out, const float* a, const float* b, int size) {
    __shared__ float sums[TPB];
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    sums[threadIdx.x] = k < size ? a[k] * b[k] : 0.0f;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            sums[threadIdx.x] += sums[threadIdx.x + half];
        }
        __syncthreads();
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        atomicAdd(&out[0], sums[0]);
    }
}
