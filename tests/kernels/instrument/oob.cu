// Bug on purpose: no bounds check, so the threads past `size` read and write past the end.
extern "C" __global__ void oob(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = a[i] * 2.0f;
}
