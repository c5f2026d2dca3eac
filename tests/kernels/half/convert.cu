// Conversions into halves in every rounding direction (__float2half_rz/_rd/_ru: cvt.rz/.rm/
// .rp.f16.f32), from double and int, the relu forms of fma (__hfma2_relu, __hfma_relu:
// fma.rn.relu), and the .relu/.satfinite conversions that only inline PTX reaches.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__global__ void round_halves(const float* x, const double* w, const int* k, __half* rn,
                             __half* rz, __half* rd, __half* ru, __half* from_double,
                             __half* from_int_rz, __half* from_int_rd, __nv_bfloat16* brz,
                             __nv_bfloat16* brn, __nv_bfloat16* brd, __nv_bfloat16* bru,
                             __nv_bfloat16* from_double_b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        rn[i] = __float2half_rn(x[i]);
        rz[i] = __float2half_rz(x[i]);
        rd[i] = __float2half_rd(x[i]);
        ru[i] = __float2half_ru(x[i]);
        from_double[i] = __double2half(w[i]);
        from_int_rz[i] = __int2half_rz(k[i]);
        from_int_rd[i] = __int2half_rd(k[i]);
        brz[i] = __float2bfloat16_rz(x[i]);
        brn[i] = __float2bfloat16_rn(x[i]);
        brd[i] = __float2bfloat16_rd(x[i]);
        bru[i] = __float2bfloat16_ru(x[i]);
        from_double_b[i] = __double2bfloat16(w[i]);
    }
}

__global__ void relu_halves(const __half2* a, const __half2* b, const __half2* c,
                            const __nv_bfloat162* ba, __half2* fma2, __half* fma1,
                            __half2* max_zero, __nv_bfloat162* bfma2, __nv_bfloat16* bfma1,
                            int pairs) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < pairs) {
        fma2[i] = __hfma2_relu(a[i], b[i], c[i]);
        fma1[i] = __hfma_relu(__low2half(a[i]), __high2half(b[i]), __low2half(c[i]));
        max_zero[i] = __hmax2(a[i], __float2half2_rn(0.0f));
        bfma2[i] = __hfma2_relu(ba[i], ba[i], __float2bfloat162_rn(-1.0f));
        bfma1[i] = __hfma_relu(__low2bfloat16(ba[i]), __high2bfloat16(ba[i]),
                               __float2bfloat16(0.5f));
    }
}

// cvt with .relu and .satfinite: no header function emits them for f16/bf16, inline PTX does.
__global__ void saturate_halves(const float* x, unsigned short* relu, unsigned short* satf,
                                unsigned* packed, unsigned short* brelu_satf, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned short r, s, b;
        unsigned p;
        asm("cvt.rn.relu.f16.f32 %0, %1;" : "=h"(r) : "f"(x[i]));
        asm("cvt.rn.satfinite.f16.f32 %0, %1;" : "=h"(s) : "f"(x[i]));
        asm("cvt.rz.relu.satfinite.f16x2.f32 %0, %1, %2;" : "=r"(p) : "f"(x[i]), "f"(-x[i]));
        asm("cvt.rn.relu.satfinite.bf16.f32 %0, %1;" : "=h"(b) : "f"(x[i]));
        relu[i] = r;
        satf[i] = s;
        packed[i] = p;
        brelu_satf[i] = b;
    }
}

// Saturating half arithmetic (__hadd_sat: add.sat.f16, __hsub2_sat: sub.sat.f16x2,
// __hmul_sat: mul.sat.f16, __hfma_sat: fma.rn.sat.f16): results clamped to [0, 1].
__global__ void saturating_halves(const __half2* a, const __half2* b, __half* add, __half* mul,
                                  __half* fma, __half2* sub2, int pairs) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < pairs) {
        __half x = __low2half(a[i]), y = __high2half(b[i]);
        add[i] = __hadd_sat(x, y);
        mul[i] = __hmul_sat(x, y);
        fma[i] = __hfma_sat(x, y, __high2half(a[i]));
        sub2[i] = __hsub2_sat(a[i], b[i]);
    }
}
