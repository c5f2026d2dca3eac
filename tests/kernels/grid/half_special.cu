// fp16 and bf16 special functions (tests/exec_grid.rs): out[k * n + i] is op k of x[i]
// (and y[i]); bout likewise for bf16.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__device__ unsigned int bits(__half2 h) { return *reinterpret_cast<unsigned int*>(&h); }

extern "C" __global__ void half_special(const __half* x, const __half* y, __half* out, float* fout, __nv_bfloat16* bout, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half a = x[i], b = y[i];
    unsigned short r;
    asm("ex2.approx.f16 %0, %1;" : "=h"(r) : "h"(__half_as_ushort(a)));
    out[0 * n + i] = __ushort_as_half(r);
    out[1 * n + i] = htanh_approx(a);
    __half2 p = __halves2half2(a, b);
    out[2 * n + i] = __high2half(h2tanh_approx(p));
    unsigned int q;
    asm("ex2.approx.f16x2 %0, %1;" : "=r"(q) : "r"(bits(p)));
    out[3 * n + i] = __ushort_as_half((unsigned short)(q >> 16));
    unsigned int mn, mx;
    asm("min.xorsign.abs.f16x2 %0, %1, %2;" : "=r"(mn) : "r"(bits(p)), "r"(bits(__halves2half2(b, a))));
    asm("max.xorsign.abs.f16x2 %0, %1, %2;" : "=r"(mx) : "r"(bits(p)), "r"(bits(__halves2half2(b, a))));
    out[4 * n + i] = __ushort_as_half((unsigned short)(mn & 0xffff));
    out[5 * n + i] = __ushort_as_half((unsigned short)(mx >> 16));
    unsigned short ms;
    asm("max.xorsign.abs.f16 %0, %1, %2;" : "=h"(ms) : "h"(__half_as_ushort(a)), "h"(__half_as_ushort(b)));
    out[6 * n + i] = __ushort_as_half(ms);
    float tf;
    asm("tanh.approx.f32 %0, %1;" : "=f"(tf) : "f"(__half2float(a)));
    fout[i] = tf;
    __nv_bfloat162 bp = __floats2bfloat162_rn(__half2float(a), __half2float(b));
    unsigned int bpa = *reinterpret_cast<unsigned int*>(&bp), bq;
    asm("tanh.approx.bf16x2 %0, %1;" : "=r"(bq) : "r"(bpa));
    bout[0 * n + i] = __ushort_as_bfloat16((unsigned short)(bq & 0xffff));
    asm("ex2.approx.ftz.bf16x2 %0, %1;" : "=r"(bq) : "r"(bpa));
    bout[1 * n + i] = __ushort_as_bfloat16((unsigned short)(bq >> 16));
    asm("min.xorsign.abs.bf16x2 %0, %1, %2;" : "=r"(bq) : "r"(bpa), "r"(bpa ^ 0x80000000u));
    bout[2 * n + i] = __ushort_as_bfloat16((unsigned short)(bq >> 16));
}
