// Puzzle 37 · Half-precision axpy: out[i] = alpha * x[i] + y[i] on __half, two at a time.
// Check with `gpuzzle run 37`; stuck? `gpuzzle hint 37`.
#include <cuda_fp16.h>

extern "C" __global__ void haxpy(__half* out, const __half* x, const __half* y, float alpha, int size) {
    // FILL ME IN (roughly 10 lines). A start, the pair this thread owns:
    //     int j = blockIdx.x * blockDim.x + threadIdx.x;  // __half2 index
    //     int i = 2 * j;                                  // its first element
}
