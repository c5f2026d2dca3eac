// lazy: every pair read as a whole __half2, the odd last element's missing partner included
#include <cuda_fp16.h>

extern "C" __global__ void haxpy(__half* out, const __half* x, const __half* y, float alpha, int size) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (2 * j < size) {
        __half2 xv = reinterpret_cast<const __half2*>(x)[j];
        __half2 yv = reinterpret_cast<const __half2*>(y)[j];
        reinterpret_cast<__half2*>(out)[j] = __hfma2(__float2half2_rn(alpha), xv, yv);
    }
}
