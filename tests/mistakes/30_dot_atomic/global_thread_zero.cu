// expect: fail
// kind: wrong-output
// why: `if (i == 0)`: only the first thread of the whole grid adds, so only block 0 counts.
// help-has: threadIdx.x == 0 | each block | every block | one thread of each block | local index
// help-not: guard the access
// Puzzle 30 · Dot product across blocks: out[0] = sum of a[i] * b[i], one atomicAdd per block.
extern "C" __global__ void dot_atomic(float* out, const float* a, const float* b, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    cache[local_i] = i < size ? a[i] * b[i] : 0.0f;
    __syncthreads();
    for (int stride = TPB / 2; stride > 0; stride /= 2) {
        if (local_i < stride) {
            cache[local_i] += cache[local_i + stride];
        }
        __syncthreads();
    }
    if (i == 0) {
        atomicAdd(&out[0], cache[0]);
    }
}
