// expect: fail
// kind: warp-sync
// why: a __ballot_sync(0xffffffff, ...) inside `if (i < size)`: the lanes past the end never reach it
extern "C" __global__ void dot_product(float* out, const float* a, const float* b, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    float v = 0.0f;
    if (i < size) {
        v = a[i] * b[i];
        unsigned nonzero = __ballot_sync(0xffffffff, v != 0.0f);
        if (nonzero == 0) v = 0.0f;
    }
    cache[local_i] = v;
    __syncthreads();
    if (local_i == 0) {
        float sum = 0.0f;
        for (int k = 0; k < TPB; k++) {
            sum += cache[k];
        }
        out[0] = sum;
    }
}
