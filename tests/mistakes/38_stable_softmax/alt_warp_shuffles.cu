// expect: pass
// why: reduces each warp with shuffles, then the four warp results through shared memory.
// Puzzle 38 · Numerically stable softmax: out[r][c] = exp(x[r][c] - max_r) / sum_k exp(x[r][k] - max_r),
// one block per row. Check with `gpuzzle run 38`; stuck? `gpuzzle hint 38`.
#include <cfloat>

__device__ float block_reduce(float v, bool is_max, float* warp_vals) {
    for (int o = 16; o > 0; o /= 2) {
        float other = __shfl_xor_sync(0xffffffff, v, o);
        v = is_max ? fmaxf(v, other) : v + other;
    }
    if (threadIdx.x % 32 == 0) {
        warp_vals[threadIdx.x / 32] = v;
    }
    __syncthreads();
    float r = warp_vals[0];
    for (int w = 1; w < TPB / 32; w++) {
        r = is_max ? fmaxf(r, warp_vals[w]) : r + warp_vals[w];
    }
    __syncthreads();
    return r;
}

extern "C" __global__ void softmax(float* out, const float* x, int rows, int cols) {
    __shared__ float warp_vals[TPB / 32];
    const float* xr = x + blockIdx.x * cols;
    float m = -FLT_MAX;
    for (int c = threadIdx.x; c < cols; c += TPB) {
        m = fmaxf(m, xr[c]);
    }
    m = block_reduce(m, true, warp_vals);
    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += TPB) {
        sum += expf(xr[c] - m);
    }
    sum = block_reduce(sum, false, warp_vals);
    for (int c = threadIdx.x; c < cols; c += TPB) {
        out[blockIdx.x * cols + c] = expf(xr[c] - m) / sum;
    }
}
