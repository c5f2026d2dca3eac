// lazy: converts each element to float and back, one scalar load per element
#include <cuda_fp16.h>

extern "C" __global__ void haxpy(__half* out, const __half* x, const __half* y, float alpha, int size) {
    int i = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
    for (int k = i; k < i + 2 && k < size; k++) {
        out[k] = __float2half(alpha * __half2float(x[k]) + __half2float(y[k]));
    }
}
