// expect: pass
// why: stores no score at all: each key's score is folded into m, l and acc as soon as it is known (the online rule one key at a time), everything in registers.
// Puzzle 46 · Fused attention: out = softmax(q k^T / sqrt(D)) v, one key tile at a time with the
// online softmax, never writing the scores out. Check with `gpuzzle run 46`; stuck? `gpuzzle hint 46`.
#include <math_constants.h>  // CUDART_INF_F

extern "C" __global__ void attention(float* out, const float* q, const float* k, const float* v, int nq, int nk) {
    __shared__ float4 ks[TILE][D / 4];
    __shared__ float4 vs[TILE][D / 4];
    int t = threadIdx.x;
    int i = blockIdx.x * TILE + t;
    const float scale = 1.0f / sqrtf((float)D);
    const float4* q4 = reinterpret_cast<const float4*>(q);
    const float4* k4 = reinterpret_cast<const float4*>(k);
    const float4* v4 = reinterpret_cast<const float4*>(v);
    const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float4 qi[D / 4];
    float4 acc[D / 4];
#pragma unroll
    for (int d = 0; d < D / 4; d++) {
        qi[d] = i < nq ? q4[i * (D / 4) + d] : zero;
        acc[d] = zero;
    }
    float m = -CUDART_INF_F;
    float l = 0.0f;
    for (int k0 = 0; k0 < nk; k0 += TILE) {
        int row = k0 + t;
#pragma unroll
        for (int d = 0; d < D / 4; d++) {
            ks[t][d] = row < nk ? k4[row * (D / 4) + d] : zero;
            vs[t][d] = row < nk ? v4[row * (D / 4) + d] : zero;
        }
        __syncthreads();
        int len = min(TILE, nk - k0);
        for (int j = 0; j < len; j++) {
            float dot = 0.0f;
#pragma unroll
            for (int d = 0; d < D / 4; d++) {
                float4 kk = ks[j][d];
                dot += qi[d].x * kk.x + qi[d].y * kk.y + qi[d].z * kk.z + qi[d].w * kk.w;
            }
            float s = dot * scale;
            float m_new = fmaxf(m, s);
            float c = expf(m - m_new);  // 1 unless this key raised the maximum
            float p = expf(s - m_new);
            l = l * c + p;
#pragma unroll
            for (int d = 0; d < D / 4; d++) {
                float4 vv = vs[j][d];
                acc[d].x = acc[d].x * c + p * vv.x;
                acc[d].y = acc[d].y * c + p * vv.y;
                acc[d].z = acc[d].z * c + p * vv.z;
                acc[d].w = acc[d].w * c + p * vv.w;
            }
            m = m_new;
        }
        __syncthreads();
    }
    if (i < nq) {
        float4* out4 = reinterpret_cast<float4*>(out);
#pragma unroll
        for (int d = 0; d < D / 4; d++) {
            out4[i * (D / 4) + d] = make_float4(acc[d].x / l, acc[d].y / l, acc[d].z / l, acc[d].w / l);
        }
    }
}
