// expect: pass
// why: merges the (max, sum) pairs with shuffles in each warp, then the four warp pairs in shared memory.
// Puzzle 39 · Online softmax: the softmax of puzzle 38 with the maximum and the sum found in one
// pass. Check with `gpuzzle run 39`; stuck? `gpuzzle hint 39`.
#include <cfloat>

__device__ void merge(float& m, float& d, float m2, float d2) {
    float mm = fmaxf(m, m2);
    d = d * expf(m - mm) + d2 * expf(m2 - mm);
    m = mm;
}

extern "C" __global__ void softmax(float* out, const float* x, int rows, int cols) {
    __shared__ float wm[TPB / 32], wd[TPB / 32];
    const float* xr = x + blockIdx.x * cols;
    float m = -FLT_MAX, d = 0.0f;
    for (int c = threadIdx.x; c < cols; c += TPB) {
        merge(m, d, xr[c], 1.0f);
    }
    for (int o = 16; o > 0; o /= 2) {
        float m2 = __shfl_xor_sync(0xffffffff, m, o);
        float d2 = __shfl_xor_sync(0xffffffff, d, o);
        merge(m, d, m2, d2);
    }
    if (threadIdx.x % 32 == 0) {
        wm[threadIdx.x / 32] = m;
        wd[threadIdx.x / 32] = d;
    }
    __syncthreads();
    m = wm[0];
    d = wd[0];
    for (int w = 1; w < TPB / 32; w++) {
        merge(m, d, wm[w], wd[w]);
    }
    for (int c = threadIdx.x; c < cols; c += TPB) {
        out[blockIdx.x * cols + c] = expf(xr[c] - m) / d;
    }
}
