// expect: fail
// kind: uninitialized-read
// line: @bug
// help-has: / 2
// help-not: halo
// help-not: 0.0f
// why: the helper's halving loop starts at TPB over a scratch of 2 * TPB, so its first round adds slots nobody stored.
// Puzzle 40 · Layer norm
__device__ float reduce_all(float v, float* scratch) {
    int l = threadIdx.x;
    scratch[l] = v;
    __syncthreads();
    for (int w = TPB; w > 0; w /= 2) {
        if (l < w) scratch[l] += scratch[l + w];  // @bug
        __syncthreads();
    }
    float r = scratch[0];
    __syncthreads();
    return r;
}

extern "C" __global__ void layer_norm(float* out, const float* x, const float* gamma, const float* beta, int rows, int cols) {
    __shared__ float scratch[2 * TPB];
    const float* xr = x + blockIdx.x * cols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += TPB) s += xr[c];
    float mu = reduce_all(s, scratch) / cols;
    float q = 0.0f;
    for (int c = threadIdx.x; c < cols; c += TPB) q += (xr[c] - mu) * (xr[c] - mu);
    float inv = rsqrtf(reduce_all(q, scratch) / cols + EPS);
    for (int c = threadIdx.x; c < cols; c += TPB) out[blockIdx.x * cols + c] = (xr[c] - mu) * inv * gamma[c] + beta[c];
}
