// lazy: two passes over the keys, one for the maximum and the sum and one for the output, no online rescaling
#include <math_constants.h>

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
    for (int d = 0; d < D / 4; d++) {
        qi[d] = i < nq ? q4[i * (D / 4) + d] : zero;
        acc[d] = zero;
    }
    // Pass 1: the maximum score.
    float m = -CUDART_INF_F;
    for (int k0 = 0; k0 < nk; k0 += TILE) {
        int row = k0 + t;
        for (int d = 0; d < D / 4; d++) {
            ks[t][d] = row < nk ? k4[row * (D / 4) + d] : zero;
        }
        __syncthreads();
        for (int j = 0; j < min(TILE, nk - k0); j++) {
            float dot = 0.0f;
            for (int d = 0; d < D / 4; d++) {
                float4 kk = ks[j][d];
                dot += qi[d].x * kk.x + qi[d].y * kk.y + qi[d].z * kk.z + qi[d].w * kk.w;
            }
            m = fmaxf(m, dot * scale);
        }
        __syncthreads();
    }
    // Pass 2: the weights against the final maximum, and the output.
    float l = 0.0f;
    for (int k0 = 0; k0 < nk; k0 += TILE) {
        int row = k0 + t;
        for (int d = 0; d < D / 4; d++) {
            ks[t][d] = row < nk ? k4[row * (D / 4) + d] : zero;
            vs[t][d] = row < nk ? v4[row * (D / 4) + d] : zero;
        }
        __syncthreads();
        for (int j = 0; j < min(TILE, nk - k0); j++) {
            float dot = 0.0f;
            for (int d = 0; d < D / 4; d++) {
                float4 kk = ks[j][d];
                dot += qi[d].x * kk.x + qi[d].y * kk.y + qi[d].z * kk.z + qi[d].w * kk.w;
            }
            float p = expf(dot * scale - m);
            l += p;
            for (int d = 0; d < D / 4; d++) {
                float4 vv = vs[j][d];
                acc[d].x += p * vv.x;
                acc[d].y += p * vv.y;
                acc[d].z += p * vv.z;
                acc[d].w += p * vv.w;
            }
        }
        __syncthreads();
    }
    if (i < nq) {
        for (int d = 0; d < D / 4; d++) {
            reinterpret_cast<float4*>(out)[i * (D / 4) + d] = make_float4(acc[d].x / l, acc[d].y / l, acc[d].z / l, acc[d].w / l);
        }
    }
}
