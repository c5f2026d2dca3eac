// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: nk
// why: fills the key and value tiles one float at a time without checking that the key row exists.
// Puzzle 46 · Fused attention
#include <math_constants.h>

extern "C" __global__ void attention(float* out, const float* q, const float* k, const float* v, int nq, int nk) {
    __shared__ float ktile[TILE][D];
    __shared__ float vtile[TILE][D];
    int tid = threadIdx.x;
    int qrow = blockIdx.x * TILE + tid;
    float qv[D];
    float o[D];
    for (int d = 0; d < D; d++) {
        qv[d] = qrow < nq ? q[qrow * D + d] : 0.0f;
        o[d] = 0.0f;
    }
    float mx = -CUDART_INF_F, den = 0.0f;
    const float inv = rsqrtf((float)D);
    for (int base = 0; base < nk; base += TILE) {
        int krow = base + tid;
        for (int d = 0; d < D; d++) {
            ktile[tid][d] = k[krow * D + d];  // @bug
            vtile[tid][d] = v[krow * D + d];
        }
        __syncthreads();
        int cnt = min(TILE, nk - base);
        for (int j = 0; j < cnt; j++) {
            float sc = 0.0f;
            for (int d = 0; d < D; d++) sc += qv[d] * ktile[j][d];
            sc *= inv;
            float nm = fmaxf(mx, sc);
            float f = expf(mx - nm), p = expf(sc - nm);
            den = den * f + p;
            for (int d = 0; d < D; d++) o[d] = o[d] * f + p * vtile[j][d];
            mx = nm;
        }
        __syncthreads();
    }
    if (qrow < nq) {
        for (int d = 0; d < D; d++) out[qrow * D + d] = o[d] / den;
    }
}
