// expect: fail
// kind: over-budget
// counter: require:f16x2
// why: loads __half2 pairs, but unpacks both halves to float, computes there and packs them again.
// help-has: __hfma2 | __half2 arithmetic
// help-not: float4
// Puzzle 37 · Half-precision axpy: out[i] = alpha * x[i] + y[i] on __half, two at a time.
// Check with `gpuzzle run 37`; stuck? `gpuzzle hint 37`.
#include <cuda_fp16.h>

extern "C" __global__ void haxpy(__half* out, const __half* x, const __half* y, float alpha, int size) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    int e = 2 * p;
    if (e + 1 < size) {
        __half2 xp = reinterpret_cast<const __half2*>(x)[p];
        __half2 yp = reinterpret_cast<const __half2*>(y)[p];
        float lo = alpha * __low2float(xp) + __low2float(yp);
        float hi = alpha * __high2float(xp) + __high2float(yp);
        reinterpret_cast<__half2*>(out)[p] = __floats2half2_rn(lo, hi);
    } else if (e < size) {
        out[e] = __float2half(alpha * __half2float(x[e]) + __half2float(y[e]));
    }
}
