// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: + 1 < | scalar
// why: reads a __half2 for every pair, the last odd element's pair included.
// Puzzle 37 · half2 axpy
#include <cuda_fp16.h>

extern "C" __global__ void haxpy(__half* out, const __half* x, const __half* y, float alpha, int size) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (2 * p < size) {
        __half2 xs = reinterpret_cast<const __half2*>(x)[p];  // @bug
        __half2 ys = reinterpret_cast<const __half2*>(y)[p];
        reinterpret_cast<__half2*>(out)[p] = __hfma2(__float2half2_rn(alpha), xs, ys);
    }
}
