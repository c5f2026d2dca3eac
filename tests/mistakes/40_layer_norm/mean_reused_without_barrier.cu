// expect: fail
// kind: shared-race
// line: @bug
// help-has: __syncthreads()
// help-not: atomicAdd
// why: two passes, written out inline; the shared array is refilled for the squares while slower
// why: threads still read the mean from red[0].
// Puzzle 40 · Layer norm: out[r][c] = (x[r][c] - mean_r) / sqrt(var_r + EPS) * gamma[c] + beta[c],
// one block per row. Check with `gpuzzle run 40`; stuck? `gpuzzle hint 40`.
extern "C" __global__ void layer_norm(float* out, const float* x, const float* gamma, const float* beta, int rows, int cols) {
    __shared__ float red[TPB];
    int t = threadIdx.x;
    const float* xr = x + blockIdx.x * cols;
    float sum = 0.0f;
    for (int c = t; c < cols; c += TPB) {
        sum += xr[c];
    }
    red[t] = sum;
    __syncthreads();
    for (int s = TPB / 2; s > 0; s /= 2) {
        if (t < s) {
            red[t] += red[t + s];
        }
        __syncthreads();
    }
    float mean = red[0] / cols;  // @bug
    float sq = 0.0f;
    for (int c = t; c < cols; c += TPB) {
        sq += (xr[c] - mean) * (xr[c] - mean);
    }
    red[t] = sq;
    __syncthreads();
    for (int s = TPB / 2; s > 0; s /= 2) {
        if (t < s) {
            red[t] += red[t + s];
        }
        __syncthreads();
    }
    float rstd = rsqrtf(red[0] / cols + EPS);
    for (int c = t; c < cols; c += TPB) {
        out[blockIdx.x * cols + c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
    }
}
