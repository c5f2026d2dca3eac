// expect: fail
// kind: wrong-output
// help-has: / cols
// help-not: __syncthreads()
// why: the row's sum is divided by TPB (the threads) instead of cols (the row length), and the
// why: variance likewise: mean and variance are off whenever cols != TPB.
// Puzzle 40 · Layer norm: out[r][c] = (x[r][c] - mean_r) / sqrt(var_r + EPS) * gamma[c] + beta[c],
__device__ float tree_sum(float v, float* buf) {
    int t = threadIdx.x;
    buf[t] = v;
    __syncthreads();
    for (int s = TPB / 2; s > 0; s /= 2) {
        if (t < s) {
            buf[t] += buf[t + s];
        }
        __syncthreads();
    }
    float r = buf[0];
    __syncthreads();
    return r;
}

extern "C" __global__ void layer_norm(float* out, const float* x, const float* gamma, const float* beta, int rows, int cols) {
    __shared__ float buf[TPB];
    const float* xr = x + blockIdx.x * cols;
    float* yr = out + blockIdx.x * cols;
    float s1 = 0.0f;
    for (int c = threadIdx.x; c < cols; c += TPB) {
        s1 += xr[c];
    }
    float mean = tree_sum(s1, buf) / TPB;  // @bug
    float s2 = 0.0f;
    for (int c = threadIdx.x; c < cols; c += TPB) {
        float dv = xr[c] - mean;
        s2 += dv * dv;
    }
    float var = tree_sum(s2, buf) / TPB;
    float inv = rsqrtf(var + EPS);
    for (int c = threadIdx.x; c < cols; c += TPB) {
        yr[c] = (xr[c] - mean) * inv * gamma[c] + beta[c];
    }
}
