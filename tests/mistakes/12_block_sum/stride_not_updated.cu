// expect: fail
// kind: step-limit
// line: @bug
// help-has: stride /= 2
// help-not: s * 2
// why: `stride / 2` computes a value and drops it; stride never changes.
// Puzzle 12 · Block sum: out[blockIdx.x] = sum of this block's TPB elements of a.
extern "C" __global__ void block_sum(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    cache[local_i] = i < size ? a[i] : 0.0f;
    __syncthreads();
    for (int stride = TPB / 2; stride > 0; stride / 2) {  // @bug
        if (local_i < stride) {
            cache[local_i] += cache[local_i + stride];
        }
        __syncthreads();
    }
    if (local_i == 0) {
        out[blockIdx.x] = cache[0];
    }
}
