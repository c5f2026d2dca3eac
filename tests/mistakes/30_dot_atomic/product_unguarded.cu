// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: i < size
// help-has: 0.0f | zero
// why: every thread multiplies its pair, past the end in the last block.
// Puzzle 30 · Dot product across blocks: out[0] = sum of a[i] * b[i], one atomicAdd per block.
extern "C" __global__ void dot_atomic(float* out, const float* a, const float* b, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    cache[local_i] = a[i] * b[i];  // @bug
    __syncthreads();
    for (int stride = TPB / 2; stride > 0; stride /= 2) {
        if (local_i < stride) {
            cache[local_i] += cache[local_i + stride];
        }
        __syncthreads();
    }
    if (local_i == 0) {
        atomicAdd(&out[0], cache[0]);
    }
}
