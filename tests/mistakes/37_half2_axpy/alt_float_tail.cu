// expect: pass
// why: __hfma2 for every whole pair; the odd element's thread multiplies and adds in float, then
// why: rounds to a half once: 2 float operations in one block, within the block budget.
// Puzzle 37 · Half-precision axpy: out[i] = alpha * x[i] + y[i] on __half, two at a time.
#include <cuda_fp16.h>

extern "C" __global__ void haxpy(__half* out, const __half* x, const __half* y, float alpha, int size) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (2 * j + 1 < size) {
        __half2 a2 = __float2half2_rn(alpha);
        reinterpret_cast<__half2*>(out)[j] =
            __hfma2(a2, reinterpret_cast<const __half2*>(x)[j], reinterpret_cast<const __half2*>(y)[j]);
    } else if (2 * j < size) {
        float product = alpha * __half2float(x[2 * j]);
        out[2 * j] = __float2half(product + __half2float(y[2 * j]));
    }
}
