// What kernels written for nvcc take for granted: <cfloat>, <climits>,
// <cstdint>, <cmath> from the host toolchain, and gcc's predefined macros.
#include <cstdint>
#include <cfloat>
#include <climits>
#include <cmath>
#include <math.h>

// out[0] = min of x, out[1] = max of x (one thread), out[2] = M_PI as float;
// counts[0] = how many x are below zero, counts[1] = INT_MAX - __INT_MAX__.
__global__ void min_max(const float* x, float* out, std::int32_t* counts, int n) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    float lo = FLT_MAX;
    float hi = -__FLT_MAX__;
    int32_t below = 0;
    for (int i = 0; i < n; ++i) {
        lo = fminf(lo, x[i]);
        hi = std::fmax(hi, x[i]);
        below += x[i] < 0.0f ? 1 : 0;
    }
    out[0] = lo;
    out[1] = hi;
    out[2] = (float)M_PI;
    counts[0] = below;
    counts[1] = INT_MAX - __INT_MAX__;
}
