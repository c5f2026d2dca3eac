// lazy: the one-pass E[x^2] - E[x]^2 the text warns against, made exact by double-float arithmetic (each sum a pair of floats, TwoSum / TwoProd with fmaf): no f64 instruction is executed, so forbid = ["f64"] does not see the double precision it emulates; no two passes, no Welford, no shift
__device__ __forceinline__ void two_sum(float a, float b, float& s, float& e) {
    s = a + b; float bb = s - a; e = (a - (s - bb)) + (b - bb);
}
__device__ __forceinline__ void df_add(float& h, float& l, float bh, float bl) {
    float s, e; two_sum(h, bh, s, e); e += l + bl;
    h = s + e; l = e - (h - s);
}
__device__ __forceinline__ void df_div(float h, float l, float d, float& qh, float& ql) {
    float q1 = h / d;
    float p = q1 * d, pe = fmaf(q1, d, -p);          // q1 * d exactly
    float rh, rl; two_sum(h, -p, rh, rl); rl += l - pe;
    float q2 = (rh + rl) / d;
    qh = q1 + q2; ql = q2 - (qh - q1);
}

extern "C" __global__ void layer_norm(float* out, const float* x, const float* gamma, const float* beta, int rows, int cols) {
    __shared__ float part[TPB / 32][4];
    int t = threadIdx.x, lane = t % 32, w = t / 32;
    const float* xr = x + blockIdx.x * cols;
    float sh = 0.f, sl = 0.f, qh = 0.f, ql = 0.f;   // sum of x, sum of x*x, as float pairs
    for (int c = t; c < cols; c += TPB) {
        float v = xr[c];
        df_add(sh, sl, v, 0.f);
        float p = v * v, pe = fmaf(v, v, -p);
        df_add(qh, ql, p, pe);
    }
    for (int o = 16; o > 0; o /= 2) {
        float a0 = __shfl_xor_sync(0xffffffff, sh, o), a1 = __shfl_xor_sync(0xffffffff, sl, o);
        float b0 = __shfl_xor_sync(0xffffffff, qh, o), b1 = __shfl_xor_sync(0xffffffff, ql, o);
        df_add(sh, sl, a0, a1);
        df_add(qh, ql, b0, b1);
    }
    if (lane == 0) { part[w][0] = sh; part[w][1] = sl; part[w][2] = qh; part[w][3] = ql; }
    __syncthreads();
    sh = part[0][0]; sl = part[0][1]; qh = part[0][2]; ql = part[0][3];
    for (int k = 1; k < TPB / 32; k++) { df_add(sh, sl, part[k][0], part[k][1]); df_add(qh, ql, part[k][2], part[k][3]); }
    float mh, ml, eh, el;
    df_div(sh, sl, (float)cols, mh, ml);          // E[x]
    df_div(qh, ql, (float)cols, eh, el);          // E[x^2]
    float m2 = mh * mh, m2e = fmaf(mh, mh, -m2) + 2.f * mh * ml;   // E[x]^2 as a pair
    df_add(eh, el, -m2, -m2e);                    // E[x^2] - E[x]^2
    float var = eh + el;
    float rstd = rsqrtf(var + EPS);
    for (int c = t; c < cols; c += TPB)
        out[blockIdx.x * cols + c] = ((xr[c] - mh) - ml) * rstd * gamma[c] + beta[c];
}
