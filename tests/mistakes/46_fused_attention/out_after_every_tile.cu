// expect: fail
// kind: over-budget
// counter: global_writes
// why: writes the normalised output after every key tile instead of once at the end.
// help-has: once | after the loop | last tile | at the end
// help-not: guard the access
// Puzzle 46 · Fused attention: out = softmax(q k^T / sqrt(D)) v, one key tile at a time with the
// online softmax, never writing the scores out. Check with `gpuzzle run 46`; stuck? `gpuzzle hint 46`.
#include <math_constants.h>  // CUDART_INF_F

extern "C" __global__ void attention(float* out, const float* q, const float* k, const float* v, int nq, int nk) {
    __shared__ float4 ks[TILE][D / 4];  // this key tile's rows of k, 4 floats at a time
    __shared__ float4 vs[TILE][D / 4];  // and of v
    int t = threadIdx.x;
    int i = blockIdx.x * TILE + t;  // this thread's query row
    const float scale = 1.0f / sqrtf((float)D);
    const float4* q4 = reinterpret_cast<const float4*>(q);
    const float4* k4 = reinterpret_cast<const float4*>(k);
    const float4* v4 = reinterpret_cast<const float4*>(v);
    const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);

    float4 qi[D / 4];   // the query row, in registers
    float4 acc[D / 4];  // running sum of exp(score - m) * v[j]
    for (int d = 0; d < D / 4; d++) {
        qi[d] = i < nq ? q4[i * (D / 4) + d] : zero;
        acc[d] = zero;
    }
    float m = -CUDART_INF_F;  // running maximum of the scores
    float l = 0.0f;           // running sum of exp(score - m)

    for (int k0 = 0; k0 < nk; k0 += TILE) {
        // The block loads the tile together: thread t brings key row k0 + t (zeros past nk).
        int row = k0 + t;
        for (int d = 0; d < D / 4; d++) {
            ks[t][d] = row < nk ? k4[row * (D / 4) + d] : zero;
            vs[t][d] = row < nk ? v4[row * (D / 4) + d] : zero;
        }
        __syncthreads();  // the whole tile is in before anyone reads it

        int len = min(TILE, nk - k0);
        float s[TILE];  // this query's scores against the tile: they never leave the thread
        float tile_max = -CUDART_INF_F;
        for (int j = 0; j < len; j++) {
            float dot = 0.0f;
            for (int d = 0; d < D / 4; d++) {
                float4 kk = ks[j][d];
                dot += qi[d].x * kk.x + qi[d].y * kk.y + qi[d].z * kk.z + qi[d].w * kk.w;
            }
            s[j] = dot * scale;
            tile_max = fmaxf(tile_max, s[j]);
        }
        // The online softmax: what was summed against the old maximum is rescaled to the new.
        float m_new = fmaxf(m, tile_max);
        float c = expf(m - m_new);  // 0 on the first tile (m = -inf)
        l *= c;
        for (int d = 0; d < D / 4; d++) {
            acc[d].x *= c;
            acc[d].y *= c;
            acc[d].z *= c;
            acc[d].w *= c;
        }
        for (int j = 0; j < len; j++) {
            float p = expf(s[j] - m_new);
            l += p;
            for (int d = 0; d < D / 4; d++) {
                float4 vv = vs[j][d];
                acc[d].x += p * vv.x;
                acc[d].y += p * vv.y;
                acc[d].z += p * vv.z;
                acc[d].w += p * vv.w;
            }
        }
        m = m_new;
        if (i < nq) {
            float4* out4 = reinterpret_cast<float4*>(out);
            for (int d = 0; d < D / 4; d++) {
                out4[i * (D / 4) + d] = make_float4(acc[d].x / l, acc[d].y / l, acc[d].z / l, acc[d].w / l);
            }
        }
        __syncthreads();
    }
}
