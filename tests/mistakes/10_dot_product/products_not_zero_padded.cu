// expect: fail
// kind: uninitialized-read
// line: @bug
// help-has: 0.0f | zero
// help-not: __syncthreads()
// why: threads past the end store nothing, but thread 0 adds all TPB slots: those slots were
// why: never written. The fix stores 0.0f for them (`i < size ? a[i] * b[i] : 0.0f`).
// Puzzle 10 · Dot product: out[0] = sum of a[i] * b[i].
extern "C" __global__ void dot_product(float* out, const float* a, const float* b, int size) {
    __shared__ float prod[TPB];
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < size) {
        prod[threadIdx.x] = a[idx] * b[idx];
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.0f;
        for (int k = 0; k < TPB; ++k) {
            total += prod[k];  // @bug
        }
        out[0] = total;
    }
}
