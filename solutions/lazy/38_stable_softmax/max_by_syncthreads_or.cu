// lazy: no shared-memory tree for the row maximum: it is found bit by bit with 32 __syncthreads_or votes on the floats' order-preserving integer keys (a bar.red, counted only as barriers, unbudgeted in 38); only the sum goes through the shared tree
#include <cfloat>

extern "C" __global__ void softmax(float* out, const float* x, int rows, int cols) {
    __shared__ float red[TPB];
    int t = threadIdx.x;
    const float* xr = x + blockIdx.x * cols;
    float* outr = out + blockIdx.x * cols;

    float m = -FLT_MAX;
    for (int c = t; c < cols; c += TPB) m = fmaxf(m, xr[c]);
    unsigned bits = __float_as_uint(m);
    unsigned key = (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
    unsigned prefix = 0;
    for (int b = 31; b >= 0; b--) {
        unsigned cand = prefix | (1u << b);
        if (__syncthreads_or((key >> b) == (cand >> b))) prefix = cand;
    }
    bits = (prefix & 0x80000000u) ? (prefix & 0x7fffffffu) : ~prefix;
    m = __uint_as_float(bits);

    float sum = 0.0f;
    for (int c = t; c < cols; c += TPB) sum += expf(xr[c] - m);
    red[t] = sum;
    __syncthreads();
    for (int s = TPB / 2; s > 0; s /= 2) {
        if (t < s) red[t] += red[t + s];
        __syncthreads();
    }
    sum = red[0];
    for (int c = t; c < cols; c += TPB) outr[c] = expf(xr[c] - m) / sum;
}
