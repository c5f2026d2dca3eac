// Memory traffic counts 4-byte words, whatever the width of the access (issue 34): a float4 is
// 4 reads, a double and an 8-byte integer 2 each, a char and a __half 1 each, a float2 store 2.
#include <cuda_fp16.h>
extern "C" __global__ void widths(float* out, const float* a, const double* d,
                                  const unsigned long long* u, const unsigned char* c,
                                  const __half* h) {
    int i = threadIdx.x;
    float4 v = reinterpret_cast<const float4*>(a)[i];
    double x = d[i];
    unsigned long long y = u[i];
    unsigned char z = c[i];
    __half w = h[i];
    float2 r = make_float2(v.x + v.y + v.z + v.w + (float)x, (float)(y & 7ull) + (float)z + __half2float(w));
    reinterpret_cast<float2*>(out)[i] = r;
}

// The same sum written with other names, moved by scalar 4-byte loads: the same 10 reads as
// `widths`, so a float4 and four floats cost alike, and 2 writes.
extern "C" __global__ void narrow(float* result, const float* x, const double* d,
                                  const unsigned long long* u, const unsigned char* c,
                                  const __half* h) {
    int t = threadIdx.x;
    float s = 0.0f;
    for (int k = 0; k < 4; k++) s += x[4 * t + k];
    const unsigned* dd = reinterpret_cast<const unsigned*>(d);
    const unsigned* uu = reinterpret_cast<const unsigned*>(u);
    s += __uint_as_float(dd[2 * t]) + __uint_as_float(dd[2 * t + 1]);
    result[2 * t] = s + (float)(uu[2 * t] & 7u) + (float)(uu[2 * t + 1] & 1u);
    result[2 * t + 1] = (float)c[t] + __half2float(h[t]);
}
