// expect: fail
// kind: barrier-divergence
// line: @bug
// help-has: outside | out of the if
// help-not: atomicAdd
// why: puts the barrier where the waiting is needed, inside thread 0's branch.
// Puzzle 10 · Dot product: out[0] = sum of a[i] * b[i].
extern "C" __global__ void dot_product(float* out, const float* a, const float* b, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    cache[local_i] = i < size ? a[i] * b[i] : 0.0f;
    if (local_i == 0) {
        __syncthreads();  // @bug
        float sum = 0.0f;
        for (int k = 0; k < TPB; k++) {
            sum += cache[k];
        }
        out[0] = sum;
    }
}
