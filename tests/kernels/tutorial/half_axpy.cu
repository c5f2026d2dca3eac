// Half precision the way the cuda_fp16.h examples write it: load floats, convert to
// __half, compute with the half intrinsics, convert back.
#include <cuda_fp16.h>

__global__ void haxpy(const float* x, float* y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __half hx = __float2half(x[i]);
        __half hy = __float2half(y[i]);
        __half r = __hfma(__float2half(a), hx, hy);
        y[i] = __half2float(r);
    }
}

// Mixed: a half product and sum, compared as halves.
__global__ void hdot_terms(const float* x, const float* w, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __half p = __hmul(__float2half(x[i]), __float2half(w[i]));
        __half s = __hadd(p, __float2half(1.0f));
        out[i] = __hgt(s, __float2half(0.0f)) ? __half2float(s) : -1.0f;
    }
}

// Half math functions (their cuda_fp16.h inline assembly declares `.reg.b32 f, ULP;`).
__global__ void hmath(const float* x, float* y, int n) {
    int i = threadIdx.x;
    if (i < n) {
        __half h = __float2half(x[i]);
        y[i] = __half2float(hexp2(h)) + __half2float(hsqrt(h)) +
               __half2float(hrcp(__hadd(h, __float2half(1.0f))));
    }
}
