// lazy: no shared tile, so no barrier to get right: every thread reads its three neighbours from global memory
extern "C" __global__ void sum3(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) {
        float left = i > 0 ? a[i - 1] : 0.0f;
        float right = i + 1 < size ? a[i + 1] : 0.0f;
        out[i] = left + a[i] + right;
    }
}
