// lazy: the shift is the first key tile's maximum score and is never updated, so nothing is rescaled (fine while later scores exceed it by less than 88)
#include <math_constants.h>
extern "C" __global__ void attention(float* out, const float* q, const float* k, const float* v, int nq, int nk) {
    __shared__ float ks[TILE][D];
    __shared__ float vs[TILE][D];
    __shared__ float ss[TILE][TILE];
    int t = threadIdx.x;
    int i = blockIdx.x * TILE + t;
    const float scale = 1.0f / sqrtf((float)D);
    float qi[D], acc[D];
#pragma unroll
    for (int d = 0; d < D; d++) { qi[d] = i < nq ? q[i * D + d] : 0.0f; acc[d] = 0.0f; }
    float m = -CUDART_INF_F, l = 0.0f;
    for (int k0 = 0; k0 < nk; k0 += TILE) {
        int row = k0 + t;
#pragma unroll
        for (int d = 0; d < D; d++) {
            ks[t][d] = row < nk ? k[row * D + d] : 0.0f;
            vs[t][d] = row < nk ? v[row * D + d] : 0.0f;
        }
        __syncthreads();
        int len = min(TILE, nk - k0);
        for (int j = 0; j < len; j++) {
            float dot = 0.0f;
#pragma unroll
            for (int d = 0; d < D; d++) dot += qi[d] * ks[j][d];
            ss[j][t] = dot * scale;
            if (k0 == 0) m = fmaxf(m, dot * scale);
        }
        for (int j = 0; j < len; j++) {
            float p = expf(ss[j][t] - m);
            l += p;
#pragma unroll
            for (int d = 0; d < D; d++) acc[d] += p * vs[j][d];
        }
        __syncthreads();
    }
    if (i < nq) {
#pragma unroll
        for (int d = 0; d < D; d++) out[i * D + d] = acc[d] / l;
    }
}
