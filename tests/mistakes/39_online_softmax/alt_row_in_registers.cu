// expect: pass
// why: keeps its (at most 4) elements in registers, finds the row's maximum with a shuffle fold
// why: and one exchange of the warps' maxima in shared memory, then the sum of exponentials the
// why: same way, and divides the kept exponentials: the register softmax the text accepts.
// Puzzle 39 · Online softmax.
#include <cfloat>

__device__ float warp_max(float v) {
    for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
    return v;
}

__device__ float warp_sum(float v) {
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);
    return v;
}

extern "C" __global__ void softmax(float* out, const float* x, int rows, int cols) {
    __shared__ float maxima[TPB / 32];
    __shared__ float sums[TPB / 32];
    const int PER = 4;
    int t = threadIdx.x, warp = t / 32;
    const float* xr = x + blockIdx.x * cols;
    float e[PER];
    float m = -FLT_MAX;
#pragma unroll
    for (int q = 0; q < PER; q++) {
        int c = t + q * TPB;
        e[q] = c < cols ? xr[c] : -FLT_MAX;
        m = fmaxf(m, e[q]);
    }
    m = warp_max(m);
    if (t % 32 == 0) maxima[warp] = m;
    __syncthreads();
    m = maxima[0];
    for (int w = 1; w < TPB / 32; w++) m = fmaxf(m, maxima[w]);
    float d = 0.0f;
#pragma unroll
    for (int q = 0; q < PER; q++) {
        e[q] = t + q * TPB < cols ? expf(e[q] - m) : 0.0f;
        d += e[q];
    }
    d = warp_sum(d);
    if (t % 32 == 0) sums[warp] = d;
    __syncthreads();
    d = 0.0f;
    for (int w = 0; w < TPB / 32; w++) d += sums[w];
#pragma unroll
    for (int q = 0; q < PER; q++) {
        int c = t + q * TPB;
        if (c < cols) out[blockIdx.x * cols + c] = e[q] / d;
    }
}
