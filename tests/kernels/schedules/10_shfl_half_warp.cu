// expect: fail
// kind: shared-race
// why: a shuffle among lanes 0..15 (mask 0xffff) stands where the barrier should be: it orders those lanes only, so lane 0 reads the slots of lanes 16 and up unordered
extern "C" __global__ void dot_product(float* out, const float* a, const float* b, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    float v = i < size ? a[i] * b[i] : 0.0f;
    cache[local_i] = v;
    if (local_i < 16) {
        v += __shfl_down_sync(0xffff, v, 1);
    }
    if (local_i == 0) {
        float sum = 0.0f;
        for (int k = 0; k < TPB; k++) {
            sum += cache[k];
        }
        out[0] = sum;
    }
}
