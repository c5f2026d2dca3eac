// expect: pass
// why: __hmul2 then __hadd2 (two roundings) instead of the fused __hfma2: within the tolerance.
// Puzzle 37 · Half-precision axpy: out[i] = alpha * x[i] + y[i] on __half, two at a time.
// Check with `gpuzzle run 37`; stuck? `gpuzzle hint 37`.
#include <cuda_fp16.h>

extern "C" __global__ void haxpy(__half* out, const __half* x, const __half* y, float alpha, int size) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = 2 * j;
    __half2 a2 = __halves2half2(__float2half(alpha), __float2half(alpha));
    if (i + 1 < size) {
        const __half2* x2 = reinterpret_cast<const __half2*>(x);
        const __half2* y2 = reinterpret_cast<const __half2*>(y);
        reinterpret_cast<__half2*>(out)[j] = __hadd2(__hmul2(a2, x2[j]), y2[j]);
    } else if (i < size) {
        out[i] = __hadd(__hmul(__low2half(a2), x[i]), y[i]);
    }
}
