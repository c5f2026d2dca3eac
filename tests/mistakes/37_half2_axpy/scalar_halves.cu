// expect: fail
// kind: over-budget
// counter: global_reads
// why: two elements per thread as the launch says, but with four scalar __half loads.
// help-has: __half2 | half2
// help-not: guard the access
// Puzzle 37 · Half-precision axpy: out[i] = alpha * x[i] + y[i] on __half, two at a time.
// Check with `gpuzzle run 37`; stuck? `gpuzzle hint 37`.
#include <cuda_fp16.h>

extern "C" __global__ void haxpy(__half* out, const __half* x, const __half* y, float alpha, int size) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = 2 * j;
    __half a = __float2half(alpha);
    for (int k = i; k < i + 2 && k < size; k++) {
        out[k] = __hfma(a, x[k], y[k]);
    }
}
