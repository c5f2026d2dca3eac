// lazy: thread 0 adds its row's values one after the other (its own from a register), no tree.
extern "C" __global__ void axis_sum(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int row = blockIdx.y;
    int local_i = threadIdx.x;
    float v = local_i < size ? a[row * size + local_i] : 0.0f;
    cache[local_i] = v;
    __syncthreads();
    if (local_i == 0) {
        float sum = v;
        for (int k = 1; k < size; k++) {
            sum += cache[k];
        }
        out[row] = sum;
    }
}
