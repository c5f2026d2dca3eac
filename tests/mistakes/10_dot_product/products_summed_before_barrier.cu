// expect: fail
// kind: shared-race
// line: @bug
// help-has: __syncthreads()
// help-not: atomicAdd
// help-not: inside the if
// why: thread 0 adds up the products right after storing its own, with the barrier only after
// why: the sum: the other threads' products may not be there yet.
// Puzzle 10 · Dot product: out[0] = sum of a[i] * b[i].
// Check with `gpuzzle run 10`; stuck? `gpuzzle hint 10`.
extern "C" __global__ void dot_product(float* out, const float* a, const float* b, int size) {
    __shared__ float prod[TPB];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int me = threadIdx.x;
    prod[me] = g < size ? a[g] * b[g] : 0.0f;
    float total = 0.0f;
    if (me == 0) {
        for (int k = 0; k < TPB; k++) {
            total += prod[k];  // @bug
        }
    }
    __syncthreads();
    if (me == 0) {
        out[0] = total;
    }
}
