// expect: fail
// kind: over-budget
// counter: global_reads
// why: two passes, but thread 0 of each block does the whole row's sums alone and the others wait.
// help-has: reduction | tree | shared | together
// help-not: guard the access
// Puzzle 40 · Layer norm: out[r][c] = (x[r][c] - mean_r) / sqrt(var_r + EPS) * gamma[c] + beta[c],
// one block per row. Check with `gpuzzle run 40`; stuck? `gpuzzle hint 40`.
extern "C" __global__ void layer_norm(float* out, const float* x, const float* gamma, const float* beta, int rows, int cols) {
    __shared__ float stats[2];
    const float* xr = x + blockIdx.x * cols;
    if (threadIdx.x == 0) {
        float sum = 0.0f;
        for (int c = 0; c < cols; c++) {
            sum += xr[c];
        }
        float mean = sum / cols;
        float sq = 0.0f;
        for (int c = 0; c < cols; c++) {
            sq += (xr[c] - mean) * (xr[c] - mean);
        }
        stats[0] = mean;
        stats[1] = rsqrtf(sq / cols + EPS);
    }
    __syncthreads();
    for (int c = threadIdx.x; c < cols; c += TPB) {
        out[blockIdx.x * cols + c] = (xr[c] - stats[0]) * stats[1] * gamma[c] + beta[c];
    }
}
