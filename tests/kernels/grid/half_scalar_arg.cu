// A `__half` and a `__nv_bfloat16` passed by value (`--arg a=f16:0.5`, tests/exec_grid.rs).
#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void scale(const __half* x, __half a, __nv_bfloat16 b, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __half2float(__hmul(x[i], a)) + __bfloat162float(b);
}
