// lazy: thread 0 computes the whole dot product from global memory; the other threads idle.
extern "C" __global__ void dot_product(float* out, const float* a, const float* b, int size) {
    if (threadIdx.x == 0) {
        float sum = 0.0f;
        for (int k = 0; k < size; k++) {
            sum += a[k] * b[k];
        }
        out[0] = sum;
    }
}
