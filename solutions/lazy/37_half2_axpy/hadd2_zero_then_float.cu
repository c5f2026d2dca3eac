// lazy: one packed instruction per pair to be counted (x + 0 with __hadd2), then alpha * x + y computed for each half in float and packed back
#include <cuda_fp16.h>
extern "C" __global__ void haxpy(__half* out, const __half* x, const __half* y, float alpha, int size) {
    int pair = blockIdx.x * blockDim.x + threadIdx.x;
    const __half2* x2 = reinterpret_cast<const __half2*>(x);
    const __half2* y2 = reinterpret_cast<const __half2*>(y);
    if (2 * pair + 1 < size) {
        __half2 xv = __hadd2(x2[pair], __half2half2(__ushort_as_half(0)));
        __half2 yv = y2[pair];
        float a0 = fmaf(alpha, __low2float(xv), __low2float(yv));
        float a1 = fmaf(alpha, __high2float(xv), __high2float(yv));
        reinterpret_cast<__half2*>(out)[pair] = __floats2half2_rn(a0, a1);
    } else if (2 * pair < size) {
        out[2 * pair] = __hfma(__float2half(alpha), x[2 * pair], y[2 * pair]);
    }
}
