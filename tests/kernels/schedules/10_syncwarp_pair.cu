// expect: fail
// kind: shared-race
// why: lanes 0 and 1 meet at a __syncwarp(3); it orders lane 1's slot before lane 0's sum, not the other lanes' slots
extern "C" __global__ void dot_product(float* out, const float* a, const float* b, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    cache[local_i] = i < size ? a[i] * b[i] : 0.0f;
    if (threadIdx.x < 2) __syncwarp(3);
    if (local_i == 0) {
        float sum = 0.0f;
        for (int k = 0; k < TPB; k++) {
            sum += cache[k];
        }
        out[0] = sum;
    }
}
