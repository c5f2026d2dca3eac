// expect: fail
// kind: barrier-divergence
// line: @bug
// help-has: `continue` on line
// help-not: is inside `if
// help-not: one in each branch
// why: threads with nothing to add `continue` past the loop's barrier.
// Puzzle 12 · Block sum: out[blockIdx.x] = sum of this block's TPB elements of a.
extern "C" __global__ void block_sum(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    cache[local_i] = i < size ? a[i] : 0.0f;
    __syncthreads();
    for (int stride = TPB / 2; stride > 0; stride /= 2) {
        if (local_i >= stride) continue;
        cache[local_i] += cache[local_i + stride];
        __syncthreads();  // @bug
    }
    if (local_i == 0) {
        out[blockIdx.x] = cache[0];
    }
}
