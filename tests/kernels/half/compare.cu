// Half comparisons as cuda_fp16.h / cuda_bf16.h write them: __hlt2 and __heq2 give 1.0 or
// 0.0 per half (set.lt.f16x2.f16x2), __hlt2_mask 0xffff per half (set.lt.u32.f16x2), __hgt
// one bool (setp.gt.f16); for bfloat16 on sm_80 the headers compare as floats
// (set.lt.f32.f32).
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void half2_compare(const __half2* x, const __half2* y, __half2* lt, __half2* eq,
                              unsigned* mask, int* gt, int pairs) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < pairs) {
        lt[i] = __hlt2(x[i], y[i]);
        eq[i] = __heq2(x[i], y[i]);
        mask[i] = __hlt2_mask(x[i], y[i]);
        gt[2 * i] = __hgt(__low2half(x[i]), __low2half(y[i]));
        gt[2 * i + 1] = __hgt(__high2half(x[i]), __high2half(y[i]));
    }
}

__global__ void bf162_compare(const __nv_bfloat162* x, const __nv_bfloat162* y,
                              __nv_bfloat162* lt, int* gt, int pairs) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < pairs) {
        lt[i] = __hlt2(x[i], y[i]);
        gt[2 * i] = __hgt(__low2bfloat16(x[i]), __low2bfloat16(y[i]));
        gt[2 * i + 1] = __hgt(__high2bfloat16(x[i]), __high2bfloat16(y[i]));
    }
}
