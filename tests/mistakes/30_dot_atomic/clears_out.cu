// expect: fail
// kind: global-race
// line: @bug
// help-has: out[0] = 0 | clear | zero
// help-not: __syncthreads()
// why: thread 0 of every block zeroes out[0] first, wiping what other blocks added.
// Puzzle 30 · Dot product across blocks: out[0] = sum of a[i] * b[i], one atomicAdd per block.
extern "C" __global__ void dot_atomic(float* out, const float* a, const float* b, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    if (i == 0 || local_i == 0) {
        out[0] = 0.0f;  // @bug
    }
    cache[local_i] = i < size ? a[i] * b[i] : 0.0f;
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
