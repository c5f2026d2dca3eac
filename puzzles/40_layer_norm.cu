// Puzzle 40 · Layer norm: out[r][c] = (x[r][c] - mean_r) / sqrt(var_r + EPS) * gamma[c] + beta[c],
// one block per row. Check with `gpuzzle run 40`; stuck? `gpuzzle hint 40`.
extern "C" __global__ void layer_norm(float* out, const float* x, const float* gamma, const float* beta, int rows, int cols) {
    // FILL ME IN (roughly 30 lines). A start:
    //     __shared__ float red[TPB];   // the threads' partial sums
    //     const float* xr = x + blockIdx.x * cols;
}
