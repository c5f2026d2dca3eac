// expect: fail
// kind: barrier-divergence
// line: @bug
// help-has: passes of the loop
// help-not: one in each branch
// help-not: if/else
// why: each thread loops only while it has work, so threads leave the loop (and its barrier) at different passes.
// Puzzle 12 · Block sum: out[blockIdx.x] = sum of this block's TPB elements of a.
extern "C" __global__ void block_sum(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x;
    cache[t] = i < size ? a[i] : 0.0f;
    __syncthreads();
    for (int stride = TPB / 2; t < stride; stride /= 2) {
        cache[t] += cache[t + stride];
        __syncthreads();  // @bug
    }
    __syncthreads();
    if (t == 0) {
        out[blockIdx.x] = cache[0];
    }
}
