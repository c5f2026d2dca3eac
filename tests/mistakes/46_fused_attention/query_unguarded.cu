// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: nq
// why: reads its query row before checking that the row exists (the last query block is partial).
// Puzzle 46 · Fused attention
#include <math_constants.h>

extern "C" __global__ void attention(float* out, const float* q, const float* k, const float* v, int nq, int nk) {
    __shared__ float ks[TILE][D];
    __shared__ float vs[TILE][D];
    int lt = threadIdx.x;
    int qi = blockIdx.x * TILE + lt;
    float mine[D];
    float acc[D];
    for (int d = 0; d < D; d++) {
        mine[d] = q[qi * D + d];  // @bug
        acc[d] = 0.0f;
    }
    float run_max = -CUDART_INF_F, run_sum = 0.0f;
    for (int s0 = 0; s0 < nk; s0 += TILE) {
        int r = s0 + lt;
        for (int d = 0; d < D; d++) {
            ks[lt][d] = r < nk ? k[r * D + d] : 0.0f;
            vs[lt][d] = r < nk ? v[r * D + d] : 0.0f;
        }
        __syncthreads();
        int n = min(TILE, nk - s0);
        for (int j = 0; j < n; j++) {
            float sc = 0.0f;
            for (int d = 0; d < D; d++) sc += mine[d] * ks[j][d];
            sc /= sqrtf((float)D);
            float nm = fmaxf(run_max, sc);
            float f = expf(run_max - nm), p = expf(sc - nm);
            run_sum = run_sum * f + p;
            for (int d = 0; d < D; d++) acc[d] = acc[d] * f + p * vs[j][d];
            run_max = nm;
        }
        __syncthreads();
    }
    if (qi < nq) {
        for (int d = 0; d < D; d++) out[qi * D + d] = acc[d] / run_sum;
    }
}
