// The long tail of the math library and integer intrinsics.

extern "C" __global__ void more_math(float* out, const float* x, int n) {
    int i = threadIdx.x;
    if (i >= n) return;
    float a = x[i];
    float* o = out + i * 24;
    o[0] = __sinf(a);
    o[1] = __cosf(a);
    o[2] = __logf(fabsf(a) + 1.0f);
    o[3] = __powf(fabsf(a) + 1.0f, 1.5f);
    o[4] = truncf(a * 3.0f);
    o[5] = roundf(a * 3.0f);
    o[6] = ceilf(a * 3.0f);
    o[7] = fmodf(a * 10.0f, 3.0f);
    o[8] = atan2f(a, 0.5f);
    o[9] = erff(a);
    o[10] = tanhf(a);
    o[11] = __saturatef(a * 2.0f);
    o[12] = (float)__float2int_rn(a * 7.0f);
    o[13] = __fadd_rz(a, 1e-8f);
    o[14] = __fmul_rn(a, 3.0f);
    o[15] = copysignf(2.0f, a);
    o[16] = exp2f(a);
    o[17] = log2f(fabsf(a) + 1.0f);
    o[18] = cbrtf(a);
    o[19] = hypotf(a, 2.0f);
    o[20] = __frcp_rn(a + 3.0f);
    o[21] = __fsqrt_rn(fabsf(a));
    o[22] = rintf(a * 5.0f);
    o[23] = (float)(double)a;
}

extern "C" __global__ void int_intrinsics(unsigned* out, const unsigned* x, const unsigned* y, int n) {
    int i = threadIdx.x;
    if (i >= n) return;
    unsigned a = x[i], b = y[i];
    unsigned* o = out + i * 10;
    o[0] = __byte_perm(a, b, 0x5140);
    o[1] = __funnelshift_l(a, b, i);
    o[2] = __funnelshift_r(a, b, i);
    o[3] = __mul24(a & 0xffffff, b & 0xffffff);
    o[4] = __umulhi(a, b);
    o[5] = __sad(a & 0xffff, b & 0xffff, 7);
    o[6] = __rhadd(a >> 1, b >> 1);
    o[7] = __uhadd(a, b);
    o[8] = (unsigned)__brevll(((unsigned long long)a << 32) | b);
    o[9] = (unsigned)__dp4a((int)a, (int)b, 5);
}
