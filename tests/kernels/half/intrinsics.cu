// Most of what cuda_fp16.h and cuda_bf16.h offer, in one kernel: math (hsqrt, hexp, h2rcp...),
// saturating and rounding arithmetic, every comparison family, conversions to and from
// integers, shuffles and __ldg of halves. Thread i reads elements i, i + 1 and i + 2.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
__global__ void every_half_function(const __half2* a, const __nv_bfloat162* b, float* out, int* iout, __half2* hout, __nv_bfloat162* bout) {
    int i = threadIdx.x;
    __half2 x = a[i], y = a[i + 1];
    __half h = __low2half(x), g = __high2half(y);
    float acc = 0.f;
    acc += __half2float(hsqrt(h)) + __half2float(hrsqrt(h)) + __half2float(hexp(h)) + __half2float(hlog(h));
    acc += __half2float(hsin(h)) + __half2float(hcos(h)) + __half2float(hrcp(h)) + __half2float(__hdiv(h, g));
    acc += __half2float(hexp2(h)) + __half2float(hlog2(h)) + __half2float(hexp10(h)) + __half2float(hlog10(h));
    acc += __half2float(htrunc(h)) + __half2float(hceil(h)) + __half2float(hfloor(h)) + __half2float(hrint(h));
    acc += __hisnan(h) + __hisinf(h) + __half2float(__habs(h)) + __half2float(__hneg(h));
    acc += __half2float(__hsub_sat(h, g)) + __half2float(__hadd_sat(h, g)) + __half2float(__hfma_sat(h, g, h)) + __half2float(__hmul_rn(h, g));
    acc += __half2float(__hmax_nan(h, g)) + __half2float(__hfma(h, g, h));
    acc += __half2short_rz(h) + __half2uint_rd(h) + __half2ll_rz(h) + __half2ushort_rn(h);
    acc += __half2float(__short2half_rn((short)i)) + __half2float(__ull2half_rn((unsigned long long)i)) + __half2float(__uint2half_rd(i));
    acc += __hbeq2(x, y) + __hequ(h, g) + __hbgeu2(x, y) + __hneu(h, g) + __hble2(x, y);
    acc += __low2float(x) + __high2float(y);
    __half2 r = __hcmadd(x, y, x);
    r = __hadd2(r, h2exp(x)); r = __hadd2(r, h2log(x)); r = __hadd2(r, h2sqrt(x)); r = __hadd2(r, h2rcp(x));
    r = __hadd2(r, h2sin(x)); r = __hadd2(r, h2cos(x)); r = __hadd2(r, h2trunc(x)); r = __hadd2(r, h2floor(x)); r = __hadd2(r, h2rint(x));
    r = __hadd2(r, __h2div(x, y)); r = __hadd2(r, __hisnan2(x)); r = __hadd2(r, __hmin2_nan(x, y));
    r = __hadd2(r, __lowhigh2highlow(x)); r = __hadd2(r, __lows2half2(x, y)); r = __hadd2(r, __hsub2_sat(x, y)); r = __hadd2(r, __hmul2_rn(x, y));
    r = __hadd2(r, __hgeu2(x, y)); r = __hadd2(r, __hne2(x, y)); r = __hadd2(r, __hgt2(x, y));
    r = __hadd2(r, __shfl_xor_sync(0xffffffff, r, 1));
    h = __shfl_down_sync(0xffffffff, h, 1);
    r = __hadd2(r, __ldg(&a[i + 2]));
    hout[i] = __hadd2(r, __half2half2(h));
    __nv_bfloat162 p = b[i], q = b[i + 1];
    __nv_bfloat16 s = __low2bfloat16(p), t = __high2bfloat16(q);
    acc += __bfloat162float(hsqrt(s)) + __bfloat162float(hexp(s)) + __bfloat162float(__hdiv(s, t)) + __bfloat162float(hrcp(s));
    acc += __bfloat162float(__hmax(s, t)) + __bfloat162float(__hmin_nan(s, t)) + __bfloat162float(__habs(s)) + __bfloat162float(__hneg(s));
    acc += __bfloat162float(__hadd(s, t)) + __bfloat162float(__hsub(s, t)) + __bfloat162float(__hmul(s, t)) + __bfloat162float(__hfma(s, t, s));
    acc += __bfloat162int_rn(s) + __bfloat162float(__int2bfloat16_rn(i)) + __bfloat162float(__float2bfloat16_rz(acc)) + __hisnan(s) + __hisinf(t);
    acc += __heq(s, t) + __hlt(s, t) + __hbgt2(p, q);
    __nv_bfloat162 u = __hfma2(p, q, p);
    u = __hadd2(u, __hmax2(p, q)); u = __hadd2(u, __habs2(p)); u = __hadd2(u, __hneg2(q)); u = __hadd2(u, __hmul2(p, q)); u = __hadd2(u, __hsub2(p, q));
    u = __hadd2(u, __h2div(p, q)); u = __hadd2(u, h2sqrt(p)); u = __hadd2(u, __hgeu2(p, q)); u = __hadd2(u, __hmin2(p, q)); u = __hadd2(u, h2floor(q));
    u = __hadd2(u, __shfl_xor_sync(0xffffffff, u, 2));
    bout[i] = u;
    out[i] = acc;
    iout[i] = __half2int_rn(h) + __bfloat162int_rz(t);
}
