// expect: pass
// why: one pass over x - k with k the row's first value (shifted data): E[(x-k)^2] - E[x-k]^2 has small terms, so nothing large cancels; the text allows it
// Puzzle 40 · Layer norm: out[r][c] = (x[r][c] - mean_r) / sqrt(var_r + EPS) * gamma[c] + beta[c],
// one block per row. Check with `gpuzzle run 40`; stuck? `gpuzzle hint 40`.
__device__ float block_sum(float v, float* red) {
    int t = threadIdx.x;
    red[t] = v;
    __syncthreads();
    for (int s = TPB / 2; s > 0; s /= 2) {
        if (t < s) {
            red[t] += red[t + s];
        }
        __syncthreads();
    }
    float total = red[0];
    __syncthreads();
    return total;
}
extern "C" __global__ void layer_norm(float* out, const float* x, const float* gamma, const float* beta, int rows, int cols) {
    __shared__ float red[TPB];
    const float* xr = x + blockIdx.x * cols;
    float* outr = out + blockIdx.x * cols;
    float k = xr[0];
    float s1 = 0.0f, s2 = 0.0f;
    for (int c = threadIdx.x; c < cols; c += TPB) {
        float d = xr[c] - k;
        s1 += d;
        s2 += d * d;
    }
    float m1 = block_sum(s1, red) / cols;
    float m2 = block_sum(s2, red) / cols;
    float rstd = rsqrtf(m2 - m1 * m1 + EPS);
    for (int c = threadIdx.x; c < cols; c += TPB) {
        outr[c] = (xr[c] - (k + m1)) * rstd * gamma[c] + beta[c];
    }
}
