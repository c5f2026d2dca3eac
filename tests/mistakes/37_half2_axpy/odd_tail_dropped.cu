// expect: fail
// kind: wrong-output
// why: handles the whole pairs and forgets the last element of an odd size.
// help-has: odd | tail | last element
// help-not: __syncthreads()
// Puzzle 37 · Half-precision axpy: out[i] = alpha * x[i] + y[i] on __half, two at a time.
// Check with `gpuzzle run 37`; stuck? `gpuzzle hint 37`.
#include <cuda_fp16.h>

extern "C" __global__ void haxpy(__half* out, const __half* x, const __half* y, float alpha, int size) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (2 * j + 1 < size) {
        __half2 xv = reinterpret_cast<const __half2*>(x)[j];
        __half2 yv = reinterpret_cast<const __half2*>(y)[j];
        reinterpret_cast<__half2*>(out)[j] = __hfma2(__float2half2_rn(alpha), xv, yv);
    }
}
