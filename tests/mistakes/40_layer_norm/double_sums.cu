// expect: fail
// kind: over-budget
// counter: f64
// why: accumulates in double to dodge cancellation, which the puzzle forbids.
// help-has: float
// help-not: __syncthreads()
// Puzzle 40 · Layer norm: out[r][c] = (x[r][c] - mean_r) / sqrt(var_r + EPS) * gamma[c] + beta[c],
// one block per row. Check with `gpuzzle run 40`; stuck? `gpuzzle hint 40`.
extern "C" __global__ void layer_norm(float* out, const float* x, const float* gamma, const float* beta, int rows, int cols) {
    __shared__ float part[TPB];
    int tid = threadIdx.x;
    const float* xr = x + blockIdx.x * cols;
    double s = 0.0;
    for (int c = tid; c < cols; c += TPB) {
        s += xr[c];
    }
    part[tid] = (float)s;
    __syncthreads();
    for (int h = TPB / 2; h > 0; h /= 2) {
        if (tid < h) {
            part[tid] += part[tid + h];
        }
        __syncthreads();
    }
    float mean = part[0] / cols;
    __syncthreads();
    float q = 0.0f;
    for (int c = tid; c < cols; c += TPB) {
        float dv = xr[c] - mean;
        q += dv * dv;
    }
    part[tid] = q;
    __syncthreads();
    for (int h = TPB / 2; h > 0; h /= 2) {
        if (tid < h) {
            part[tid] += part[tid + h];
        }
        __syncthreads();
    }
    float inv = rsqrtf(part[0] / cols + EPS);
    for (int c = tid; c < cols; c += TPB) {
        out[blockIdx.x * cols + c] = (xr[c] - mean) * inv * gamma[c] + beta[c];
    }
}
