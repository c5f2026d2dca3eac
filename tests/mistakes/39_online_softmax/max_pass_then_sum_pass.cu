// expect: fail
// kind: over-budget
// counter: global_reads
// why: a pass for the maximum, a pass for the sum of exponentials, a pass for the output, each
// why: reading the row from global memory: right, but the maximum and the sum belong in one pass.
// help-has: online | one pass | running maximum | rescale
// help-not: guard the access
// Puzzle 39 · Online softmax: the softmax of puzzle 38 with the maximum and the sum found in one
// pass. Check with `gpuzzle run 39`; stuck? `gpuzzle hint 39`.
#include <cfloat>

__device__ float block_max(float v, float* part) {
    part[threadIdx.x] = v;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h /= 2) {
        if (threadIdx.x < h) part[threadIdx.x] = fmaxf(part[threadIdx.x], part[threadIdx.x + h]);
        __syncthreads();
    }
    float r = part[0];
    __syncthreads();
    return r;
}

__device__ float block_add(float v, float* part) {
    part[threadIdx.x] = v;
    __syncthreads();
    for (int h = blockDim.x / 2; h > 0; h /= 2) {
        if (threadIdx.x < h) part[threadIdx.x] += part[threadIdx.x + h];
        __syncthreads();
    }
    float r = part[0];
    __syncthreads();
    return r;
}

extern "C" __global__ void softmax(float* out, const float* x, int rows, int cols) {
    __shared__ float part[TPB];
    int base = blockIdx.x * cols;
    float hi = -FLT_MAX;
    for (int k = threadIdx.x; k < cols; k += blockDim.x) {
        hi = fmaxf(hi, x[base + k]);
    }
    hi = block_max(hi, part);
    float den = 0.0f;
    for (int k = threadIdx.x; k < cols; k += blockDim.x) {
        den += __expf(x[base + k] - hi);
    }
    den = block_add(den, part);
    for (int k = threadIdx.x; k < cols; k += blockDim.x) {
        out[base + k] = __expf(x[base + k] - hi) / den;
    }
}
