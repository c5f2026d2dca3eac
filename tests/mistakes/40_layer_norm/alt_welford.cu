// expect: pass
// why: Welford's update per thread, the (count, mean, M2) triples merged with Chan's formula.
// Puzzle 40 · Layer norm: out[r][c] = (x[r][c] - mean_r) / sqrt(var_r + EPS) * gamma[c] + beta[c],
// one block per row. Check with `gpuzzle run 40`; stuck? `gpuzzle hint 40`.
extern "C" __global__ void layer_norm(float* out, const float* x, const float* gamma, const float* beta, int rows, int cols) {
    __shared__ float s_n[TPB], s_mean[TPB], s_m2[TPB];
    int t = threadIdx.x;
    const float* xr = x + blockIdx.x * cols;
    float n = 0.0f, mean = 0.0f, m2 = 0.0f;
    for (int c = t; c < cols; c += TPB) {
        float v = xr[c];
        n += 1.0f;
        float delta = v - mean;
        mean += delta / n;
        m2 += delta * (v - mean);
    }
    s_n[t] = n;
    s_mean[t] = mean;
    s_m2[t] = m2;
    __syncthreads();
    for (int s = TPB / 2; s > 0; s /= 2) {
        if (t < s) {
            float na = s_n[t], nb = s_n[t + s];
            float nn = na + nb;
            if (nb > 0.0f) {
                float delta = s_mean[t + s] - s_mean[t];
                s_mean[t] = s_mean[t] + delta * (nb / nn);
                s_m2[t] = s_m2[t] + s_m2[t + s] + delta * delta * (na * nb / nn);
                s_n[t] = nn;
            }
        }
        __syncthreads();
    }
    mean = s_mean[0];
    float rstd = rsqrtf(s_m2[0] / cols + EPS);
    for (int c = t; c < cols; c += TPB) {
        out[blockIdx.x * cols + c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
    }
}
