// lazy: no online softmax: a first pass over every key for the maximum and the sum, a second for the output, k read twice with 8-byte loads
extern "C" __global__ void attention(float* out, const float* q, const float* k, const float* v, int nq, int nk) {
    __shared__ float ks[TILE][D];
    __shared__ float vs[TILE][D];
    int t = threadIdx.x;
    int i = blockIdx.x * TILE + t;
    const float scale = 1.0f / sqrtf((float)D);
    const unsigned long long* k2 = reinterpret_cast<const unsigned long long*>(k);
    float qi[D];
#pragma unroll
    for (int d = 0; d < D; d++) {
        qi[d] = i < nq ? q[i * D + d] : 0.0f;
    }
    float m = -1e30f, l = 0.0f;
    for (int pass = 0; pass < 2; pass++) {
        float acc[D];
#pragma unroll
        for (int d = 0; d < D; d++) {
            acc[d] = 0.0f;
        }
        for (int k0 = 0; k0 < nk; k0 += TILE) {
            int row = k0 + t;
#pragma unroll
            for (int d = 0; d < D; d += 2) {
                unsigned long long w = row < nk ? k2[(row * D + d) / 2] : 0ull;
                ks[t][d] = __uint_as_float((unsigned int)(w & 0xffffffffull));
                ks[t][d + 1] = __uint_as_float((unsigned int)(w >> 32));
                if (pass == 1) {
                    vs[t][d] = row < nk ? v[row * D + d] : 0.0f;
                    vs[t][d + 1] = row < nk ? v[row * D + d + 1] : 0.0f;
                }
            }
            __syncthreads();
            int len = min(TILE, nk - k0);
            for (int j = 0; j < len; j++) {
                float s = 0.0f;
#pragma unroll
                for (int d = 0; d < D; d++) {
                    s += qi[d] * ks[j][d];
                }
                s *= scale;
                if (pass == 0) {
                    float m2 = fmaxf(m, s);
                    l = l * expf(m - m2) + expf(s - m2);
                    m = m2;
                } else {
                    float p = expf(s - m) / l;
#pragma unroll
                    for (int d = 0; d < D; d++) {
                        acc[d] += p * vs[j][d];
                    }
                }
            }
            __syncthreads();
        }
        if (pass == 1 && i < nq) {
#pragma unroll
            for (int d = 0; d < D; d++) {
                out[i * D + d] = acc[d];
            }
        }
    }
}
