// expect: fail
// kind: shared-race
// why: lane 1 reads the total early, lane 0 late; lanes 1 and 2 meet at a __syncwarp(6), then lane 2 overwrites the total: ordered after lane 1's read, not after lane 0's (one thread at a time sees lane 0 read first, lockstep lane 1)
extern "C" __global__ void dot_product(float* out, const float* a, const float* b, int size) {
    __shared__ float cache[TPB];
    __shared__ float total;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    cache[local_i] = i < size ? a[i] * b[i] : 0.0f;
    __syncthreads();
    if (local_i == 0) {
        float sum = 0.0f;
        for (int k = 0; k < TPB; k++) {
            sum += cache[k];
        }
        total = sum;
    }
    __syncthreads();
    float r = 0.0f;
    if (local_i == 1) r = total;
    if (local_i == 1 || local_i == 2) __syncwarp(6);
    if (local_i == 0) r = total;
    if (local_i == 2) total = 0.0f;
    if (local_i == 0) out[0] = r;
}
