// expect: fail
// kind: wrong-output
// why: handles the odd tail, but its pair bound `p < pairs - 1` leaves the last whole pair unwritten: not the odd-size mistake, so the puzzle's hint about the odd tail must not be shown.
// help-has: never written
// help-has: bound
// help-not: odd
// Puzzle 37 · Half-precision axpy: out[i] = alpha * x[i] + y[i] on __half, two at a time.
// Check with `gpuzzle run 37`; stuck? `gpuzzle hint 37`.
#include <cuda_fp16.h>

extern "C" __global__ void haxpy(__half* out, const __half* x, const __half* y, float alpha, int size) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    int pairs = size / 2;
    __half2 a2 = __float2half2_rn(alpha);
    if (p < pairs - 1) {
        reinterpret_cast<__half2*>(out)[p] = __hfma2(a2, reinterpret_cast<const __half2*>(x)[p], reinterpret_cast<const __half2*>(y)[p]);
    }
    if (size % 2 == 1 && p == pairs) {
        out[size - 1] = __hfma(__float2half(alpha), x[size - 1], y[size - 1]);
    }
}
