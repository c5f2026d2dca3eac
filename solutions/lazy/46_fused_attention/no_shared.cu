// lazy: no shared tiles: each thread reads every row of k and v from global memory itself
#include <math_constants.h>

extern "C" __global__ void attention(float* out, const float* q, const float* k, const float* v, int nq, int nk) {
    int i = blockIdx.x * TILE + threadIdx.x;
    if (i >= nq) {
        return;
    }
    const float scale = 1.0f / sqrtf((float)D);
    float acc[D];
    for (int d = 0; d < D; d++) {
        acc[d] = 0.0f;
    }
    float m = -CUDART_INF_F;
    float l = 0.0f;
    for (int j = 0; j < nk; j++) {
        float s = 0.0f;
        for (int d = 0; d < D; d++) {
            s += q[i * D + d] * k[j * D + d];
        }
        s *= scale;
        float m_new = fmaxf(m, s);
        float c = expf(m - m_new);
        float p = expf(s - m_new);
        l = l * c + p;
        for (int d = 0; d < D; d++) {
            acc[d] = acc[d] * c + p * v[j * D + d];
        }
        m = m_new;
    }
    for (int d = 0; d < D; d++) {
        out[i * D + d] = acc[d] / l;
    }
}
