// expect: fail
// kind: wrong-output
// help-has: beta[c] + gamma[c]
// why: held-out (stop 44): scale by beta and shift by gamma
// Puzzle 40 · Layer norm: out[r][c] = (x[r][c] - mean_r) / sqrt(var_r + EPS) * gamma[c] + beta[c],
// deviation, each reduced across the block in shared memory; then the output).

// The sum of every thread's `v` over the block, returned to every thread; `red` is free again
// when it returns.
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

    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += TPB) {
        sum += xr[c];
    }
    float mean = block_sum(sum, red) / cols;

    // Deviations from the mean are small: their squares add up without cancelling.
    float sq = 0.0f;
    for (int c = threadIdx.x; c < cols; c += TPB) {
        float d = xr[c] - mean;
        sq += d * d;
    }
    float rstd = rsqrtf(block_sum(sq, red) / cols + EPS);

    for (int c = threadIdx.x; c < cols; c += TPB) {
        outr[c] = (xr[c] - mean) * rstd * beta[c] + gamma[c];
    }
}
