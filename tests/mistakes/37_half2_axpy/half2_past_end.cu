// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: i + 1 < size | odd
// why: reads a whole __half2 whenever its first element is in range: with an odd size the last
// why: pair's second half is past the end.
// Puzzle 37 · Half-precision axpy: out[i] = alpha * x[i] + y[i] on __half, two at a time.
// Check with `gpuzzle run 37`; stuck? `gpuzzle hint 37`.
#include <cuda_fp16.h>

extern "C" __global__ void haxpy(__half* out, const __half* x, const __half* y, float alpha, int size) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = 2 * j;
    if (i < size) {
        __half2 xv = reinterpret_cast<const __half2*>(x)[j];  // @bug
        __half2 yv = reinterpret_cast<const __half2*>(y)[j];
        reinterpret_cast<__half2*>(out)[j] = __hfma2(__float2half2_rn(alpha), xv, yv);
    }
}
