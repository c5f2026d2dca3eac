// lazy: guards with the first test's size (4) written as a number instead of `size`.
extern "C" __global__ void guard(float* out, const float* a, int size) {
    int local_i = threadIdx.x;
    if (local_i < 4) {
        out[local_i] = a[local_i] + 10.0f;
    }
}
