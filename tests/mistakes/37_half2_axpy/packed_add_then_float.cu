// expect: fail
// kind: over-budget
// counter: block_budget:f32
// why: runs one __hadd2 per pair (adding zero) so that packed arithmetic is counted, then unpacks
// why: both halves to float and computes alpha * x + y there.
// help-has: __hfma2
// help-has: does not make the rest packed
// help-not: float4
// Puzzle 37 · Half-precision axpy: out[i] = alpha * x[i] + y[i] on __half, two at a time.
#include <cuda_fp16.h>

extern "C" __global__ void haxpy(__half* out, const __half* x, const __half* y, float alpha, int size) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = 2 * j;
    if (i + 1 < size) {
        __half2 zero = __float2half2_rn(0.0f);
        __half2 xv = __hadd2(reinterpret_cast<const __half2*>(x)[j], zero);
        __half2 yv = reinterpret_cast<const __half2*>(y)[j];
        float lo = alpha * __low2float(xv) + __low2float(yv);
        float hi = alpha * __high2float(xv) + __high2float(yv);
        reinterpret_cast<__half2*>(out)[j] = __floats2half2_rn(lo, hi);
    } else if (i < size) {
        out[i] = __hfma(__float2half(alpha), x[i], y[i]);
    }
}
