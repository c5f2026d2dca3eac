// lazy: guards with the first test's size (9) written as a number instead of `size`.
extern "C" __global__ void blocks(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 9) {
        out[i] = a[i] + 10.0f;
    }
}
