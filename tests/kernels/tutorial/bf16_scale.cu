// bfloat16 as mixed-precision tutorials use it: store in bf16, compute, widen back.
#include <cuda_bf16.h>

__global__ void bf16_scale_add(const float* x, const float* y, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __nv_bfloat16 a = __float2bfloat16(x[i]);
        __nv_bfloat16 b = __float2bfloat16(y[i]);
        __nv_bfloat16 r = __hfma(a, __float2bfloat16(0.5f), b);
        out[i] = __bfloat162float(__hmul(r, r));
    }
}
