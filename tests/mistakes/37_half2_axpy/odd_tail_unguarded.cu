// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: i < size
// help-not: fits in
// why: every thread whose pair does not fit takes the scalar branch, including threads wholly
// why: past the end: they read x[i] past the array. The scalar branch needs `else if (i < size)`.
// Puzzle 37 · Half-precision axpy: out[i] = alpha * x[i] + y[i] on __half, two at a time.
#include <cuda_fp16.h>

extern "C" __global__ void haxpy(__half* out, const __half* x, const __half* y, float alpha, int size) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    int i = p * 2;
    __half2 al = __float2half2_rn(alpha);
    if (i + 1 < size) {
        __half2 a2 = reinterpret_cast<const __half2*>(x)[p];
        __half2 b2 = reinterpret_cast<const __half2*>(y)[p];
        reinterpret_cast<__half2*>(out)[p] = __hfma2(al, a2, b2);
    } else {
        out[i] = __hfma(__low2half(al), x[i], y[i]);  // @bug
    }
}
