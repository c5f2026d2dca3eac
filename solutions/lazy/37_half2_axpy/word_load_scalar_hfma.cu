// lazy: one 32-bit unsigned load per array brings the pair, but it is split into two __half and computed with two scalar __hfma
#include <cuda_fp16.h>

extern "C" __global__ void haxpy(__half* out, const __half* x, const __half* y, float alpha, int size) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = 2 * j;
    __half a = __float2half(alpha);
    if (i + 1 < size) {
        unsigned int xw = reinterpret_cast<const unsigned int*>(x)[j];
        unsigned int yw = reinterpret_cast<const unsigned int*>(y)[j];
        __half lo = __hfma(a, __ushort_as_half((unsigned short)(xw & 0xffff)), __ushort_as_half((unsigned short)(yw & 0xffff)));
        __half hi = __hfma(a, __ushort_as_half((unsigned short)(xw >> 16)), __ushort_as_half((unsigned short)(yw >> 16)));
        unsigned int ow = (unsigned int)__half_as_ushort(lo) | ((unsigned int)__half_as_ushort(hi) << 16);
        reinterpret_cast<unsigned int*>(out)[j] = ow;
    } else if (i < size) {
        out[i] = __hfma(a, x[i], y[i]);
    }
}
