// lazy: every thread moves its group of four with four 4-byte loads per array and four 4-byte stores, no float4
extern "C" __global__ void add4(float* out, const float* a, const float* b, int size) {
    int first = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
    for (int k = first; k < first + 4 && k < size; k++) {
        out[k] = a[k] + b[k];
    }
}
