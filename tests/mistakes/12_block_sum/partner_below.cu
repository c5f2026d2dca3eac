// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: local_i + stride | + stride
// help-not: if (i < size)
// why: the active threads are the lower half (local_i < stride) but they add the partner BELOW,
// why: cache[local_i - stride], which is negative for all of them. The partner is cache[local_i + stride].
// Puzzle 12 · Block sum: out[blockIdx.x] = sum of this block's TPB elements of a.
extern "C" __global__ void block_sum(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    cache[local_i] = i < size ? a[i] : 0.0f;
    __syncthreads();
    for (int stride = TPB / 2; stride > 0; stride /= 2) {
        if (local_i < stride) {
            cache[local_i] += cache[local_i - stride];  // @bug
        }
        __syncthreads();
    }
    if (local_i == 0) {
        out[blockIdx.x] = cache[0];
    }
}
