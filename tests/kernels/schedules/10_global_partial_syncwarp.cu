// expect: fail
// kind: global-race
// why: lane 1 clears out[0], lane 0 writes the total after a __syncwarp(1) that lane 1 never joins: the two writes are unordered
extern "C" __global__ void dot_product(float* out, const float* a, const float* b, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    cache[local_i] = i < size ? a[i] * b[i] : 0.0f;
    __syncthreads();
    if (local_i == 1) out[0] = 0.0f;
    if (local_i == 0) {
        __syncwarp(1);
        float sum = 0.0f;
        for (int k = 0; k < TPB; k++) {
            sum += cache[k];
        }
        out[0] = sum;
    }
}
