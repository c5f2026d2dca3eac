// expect: fail
// kind: wrong-output
// help-has: sqrtf | sqrt(D) | square root
// help-not: expf(m - m_new)
// why: the scores are scaled by 1 / D instead of 1 / sqrt(D): every score is 8 times too small
// why: (D = 64), so the softmax comes out too flat.
// Puzzle 46 · Fused attention: out = softmax(q k^T / sqrt(D)) v, one key tile at a time with the
// shared memory read as float4, the tile's scores in shared memory (column t is thread t's), the
// online softmax with the accumulator rescaled when the maximum grows). Nothing lives in local
// memory: qi and acc are indexed only by unrolled loops, so they stay in registers.
#include <math_constants.h>  // CUDART_INF_F

extern "C" __global__ void attention(float* out, const float* q, const float* k, const float* v, int nq, int nk) {
    __shared__ float4 ks[TILE][D / 4];  // this key tile's rows of k, 4 floats at a time
    __shared__ float4 vs[TILE][D / 4];  // and of v
    __shared__ float ss[TILE][TILE];    // the tile's scores: ss[j][t] is key j's for thread t's query
    int t = threadIdx.x;
    int i = blockIdx.x * TILE + t;  // this thread's query row
    const float scale = 1.0f / (float)D;  // @bug
    const float4* q4 = reinterpret_cast<const float4*>(q);
    const float4* k4 = reinterpret_cast<const float4*>(k);
    const float4* v4 = reinterpret_cast<const float4*>(v);
    const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);

    float4 qi[D / 4];   // the query row, in registers
    float4 acc[D / 4];  // running sum of exp(score - m) * v[j]
#pragma unroll
    for (int d = 0; d < D / 4; d++) {
        qi[d] = i < nq ? q4[i * (D / 4) + d] : zero;
        acc[d] = zero;
    }
    float m = -CUDART_INF_F;  // running maximum of the scores
    float l = 0.0f;           // running sum of exp(score - m)

    for (int k0 = 0; k0 < nk; k0 += TILE) {
        // The block loads the tile together: thread t brings key row k0 + t (zeros past nk).
        int row = k0 + t;
#pragma unroll
        for (int d = 0; d < D / 4; d++) {
            ks[t][d] = row < nk ? k4[row * (D / 4) + d] : zero;
            vs[t][d] = row < nk ? v4[row * (D / 4) + d] : zero;
        }
        __syncthreads();  // the whole tile is in before anyone reads it

        int len = min(TILE, nk - k0);
        float tile_max = -CUDART_INF_F;
        for (int j = 0; j < len; j++) {
            float dot = 0.0f;
#pragma unroll
            for (int d = 0; d < D / 4; d++) {
                float4 kk = ks[j][d];
                dot += qi[d].x * kk.x + qi[d].y * kk.y + qi[d].z * kk.z + qi[d].w * kk.w;
            }
            // A thread's own column of ss: consecutive threads, consecutive banks. (A local
            // `float s[TILE]` indexed by j would live in local memory, off the chip.)
            ss[j][t] = dot * scale;
            tile_max = fmaxf(tile_max, dot * scale);
        }
        // The online softmax: what was summed against the old maximum is rescaled to the new.
        float m_new = fmaxf(m, tile_max);
        float c = expf(m - m_new);  // 0 on the first tile (m = -inf)
        l *= c;
#pragma unroll
        for (int d = 0; d < D / 4; d++) {
            acc[d].x *= c;
            acc[d].y *= c;
            acc[d].z *= c;
            acc[d].w *= c;
        }
        for (int j = 0; j < len; j++) {
            float p = expf(ss[j][t] - m_new);
            l += p;
#pragma unroll
            for (int d = 0; d < D / 4; d++) {
                float4 vv = vs[j][d];
                acc[d].x += p * vv.x;
                acc[d].y += p * vv.y;
                acc[d].z += p * vv.z;
                acc[d].w += p * vv.w;
            }
        }
        m = m_new;
        __syncthreads();  // every thread is done with the tile before the next one overwrites it
    }
    if (i < nq) {
        float4* out4 = reinterpret_cast<float4*>(out);
#pragma unroll
        for (int d = 0; d < D / 4; d++) {
            out4[i * (D / 4) + d] = make_float4(acc[d].x / l, acc[d].y / l, acc[d].z / l, acc[d].w / l);
        }
    }
}
