// expect: fail
// kind: shared-race
// why: the barrier replaced by a __syncwarp that only lane 0 executes, naming only itself: it orders nothing, so lane 0 reads the other lanes' slots unordered
extern "C" __global__ void dot_product(float* out, const float* a, const float* b, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    cache[local_i] = i < size ? a[i] * b[i] : 0.0f;
    if (threadIdx.x == 0) __syncwarp(1);
    if (local_i == 0) {
        float sum = 0.0f;
        for (int k = 0; k < TPB; k++) {
            sum += cache[k];
        }
        out[0] = sum;
    }
}
