// expect: fail
// kind: wrong-output
// why: one pass with var = E[x^2] - E[x]^2: cancels catastrophically for rows near 10000.
// help-has: two passes | mean first | x - mean | cancel | welford
// help-not: guard the access
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
    float sum = 0.0f, sq = 0.0f;
    for (int c = threadIdx.x; c < cols; c += TPB) {
        sum += xr[c];
        sq += xr[c] * xr[c];
    }
    float mean = block_sum(sum, red) / cols;
    float var = block_sum(sq, red) / cols - mean * mean;
    float rstd = rsqrtf(var + EPS);
    for (int c = threadIdx.x; c < cols; c += TPB) {
        out[blockIdx.x * cols + c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
    }
}
