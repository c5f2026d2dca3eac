// lazy: each thread adds element j, j + n/4, j + n/2 and j + 3n/4 (four strided scalar loads per array), coalesced but never vectorised
extern "C" __global__ void add4(float* out, const float* a, const float* b, int size) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = gridDim.x * blockDim.x;
    for (int k = j; k < size; k += stride) out[k] = a[k] + b[k];
}
