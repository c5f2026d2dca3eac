// expect: fail
// kind: uninitialized-read
// line: @bug
// help-has: 0.0f | zero
// help-not: __syncthreads()
// why: threads past the end store nothing; the tree adds the leftover in their slots.
// Puzzle 12 · Block sum: out[blockIdx.x] = sum of this block's TPB elements of a.
extern "C" __global__ void block_sum(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    if (i < size) {
        cache[local_i] = a[i];
    }
    __syncthreads();
    for (int stride = TPB / 2; stride > 0; stride /= 2) {
        if (local_i < stride) {
            cache[local_i] += cache[local_i + stride];  // @bug
        }
        __syncthreads();
    }
    if (local_i == 0) {
        out[blockIdx.x] = cache[0];
    }
}
