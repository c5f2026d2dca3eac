// expect: fail
// kind: wrong-output
// why: lanes 1 and 2 meet, then lanes 0 and 1: lane 0 may read slots 0..2 (ordered through lane 1) and sums only those, so no race, just a wrong total
extern "C" __global__ void dot_product(float* out, const float* a, const float* b, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    cache[local_i] = i < size ? a[i] * b[i] : 0.0f;
    if (local_i == 1 || local_i == 2) __syncwarp(6);
    if (local_i < 2) __syncwarp(3);
    if (local_i == 0) {
        out[0] = cache[0] + cache[1] + cache[2];
    }
}
