// expect: fail
// kind: wrong-output
// why: builds the alpha pair with 0 in the high half, so every odd element gets y alone.
// help-has: __float2half2_rn | both halves | __half2half2
// help-not: guard
// Puzzle 37 · Half-precision axpy: out[i] = alpha * x[i] + y[i] on __half, two at a time.
// Check with `gpuzzle run 37`; stuck? `gpuzzle hint 37`.
#include <cuda_fp16.h>

extern "C" __global__ void haxpy(__half* out, const __half* x, const __half* y, float alpha, int size) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    int e = 2 * p;
    __half2 scale = __halves2half2(__float2half(alpha), __float2half(0.0f));
    if (e + 1 < size) {
        __half2 xp = reinterpret_cast<const __half2*>(x)[p];
        __half2 yp = reinterpret_cast<const __half2*>(y)[p];
        reinterpret_cast<__half2*>(out)[p] = __hfma2(scale, xp, yp);
    } else if (e < size) {
        out[e] = __hfma(__float2half(alpha), x[e], y[e]);
    }
}
