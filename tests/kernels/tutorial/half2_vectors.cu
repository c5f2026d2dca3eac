// Two halves per register, as the cuda_fp16.h vector intrinsics use them: pairs of
// elements loaded as floats, packed, computed with __hfma2/__hadd2/__hmul2, unpacked.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void half2_axpy(const float* x, float* y, float a, int pairs) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < pairs) {
        __half2 hx = __floats2half2_rn(x[2 * i], x[2 * i + 1]);
        __half2 hy = __floats2half2_rn(y[2 * i], y[2 * i + 1]);
        __half2 r = __hfma2(__float2half2_rn(a), hx, hy);
        r = __hadd2(r, __hmul2(hx, __float2half2_rn(0.25f)));
        float2 f = __half22float2(__hneg2(r));
        y[2 * i] = f.x;
        y[2 * i + 1] = f.y;
    }
}

__global__ void bf162_scale(const float* x, float* y, int pairs) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < pairs) {
        __nv_bfloat162 v = __floats2bfloat162_rn(x[2 * i], x[2 * i + 1]);
        __nv_bfloat162 s = __hmul2(v, __floats2bfloat162_rn(2.0f, -3.0f));
        float2 f = __bfloat1622float2(s);
        y[2 * i] = f.x;
        y[2 * i + 1] = f.y;
    }
}
