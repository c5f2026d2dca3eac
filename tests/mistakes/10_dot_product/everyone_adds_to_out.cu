// expect: fail
// kind: global-race
// line: @bug
// help-has: cache | shared
// help-not: __threadfence
// help-not: __syncthreads() between
// why: every thread adds its product straight into out[0]: a read-add-write race.
// Puzzle 10 · Dot product: out[0] = sum of a[i] * b[i].
extern "C" __global__ void dot_product(float* out, const float* a, const float* b, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    if (i < size) {
        out[0] += a[i] * b[i];  // @bug
    }
}
