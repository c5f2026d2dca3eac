// expect: fail
// kind: shared-race
// why: lanes 1 and 2 meet, then lanes 0 and 1 (mask 3): lane 0 learns lane 2's slot through lane 1, but the other lanes' slots stay unordered with lane 0's sum
extern "C" __global__ void dot_product(float* out, const float* a, const float* b, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    cache[local_i] = i < size ? a[i] * b[i] : 0.0f;
    if (local_i == 1 || local_i == 2) __syncwarp(6);
    if (local_i < 2) __syncwarp(3);
    if (local_i == 0) {
        float sum = 0.0f;
        for (int k = 0; k < TPB; k++) {
            sum += cache[k];
        }
        out[0] = sum;
    }
}
