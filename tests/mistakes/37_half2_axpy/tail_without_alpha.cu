// expect: fail
// kind: wrong-output
// help-has: __hadd(x[i], y[i]) | alpha
// why: held-out (stop 44): the odd last element is x + y, alpha forgotten
// Puzzle 37 · Half-precision axpy: out[i] = alpha * x[i] + y[i] on __half, two at a time.
// for the last element of an odd size).
#include <cuda_fp16.h>

extern "C" __global__ void haxpy(__half* out, const __half* x, const __half* y, float alpha, int size) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = 2 * j;
    if (i + 1 < size) {
        __half2 xv = reinterpret_cast<const __half2*>(x)[j];
        __half2 yv = reinterpret_cast<const __half2*>(y)[j];
        reinterpret_cast<__half2*>(out)[j] = __hfma2(__float2half2_rn(alpha), xv, yv);
    } else if (i < size) {
        out[i] = __hadd(x[i], y[i]);
    }
}
