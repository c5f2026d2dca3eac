// Buffers of __half and __nv_bfloat16 given and read back as numbers (f16[N], bf16[N]).
#include <cuda_fp16.h>
#include <cuda_bf16.h>
__global__ void hscale(const __half* x, __half* y, __nv_bfloat16* z, int n) {
    int i = threadIdx.x;
    if (i < n) {
        y[i] = __hmul(x[i], __float2half(0.5f));
        z[i] = __float2bfloat16(__half2float(x[i]) * 3.0f);
    }
}
