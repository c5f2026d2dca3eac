// expect: fail
// kind: shared-race
// line: @bug
// help-has: between | before the read | move
// help-not: atomicAdd
// why: has a barrier, but after the reads it should protect.
// Puzzle 9 · Pooling: out[i] = a[i - 2] + a[i - 1] + a[i] (fewer terms at the start).
extern "C" __global__ void pooling(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int local_i = threadIdx.x;
    float sum = 0.0f;
    if (i < size) {
        cache[local_i] = a[i];
        sum = cache[local_i];
        if (local_i >= 1) sum += cache[local_i - 1];  // @bug
        if (local_i >= 2) sum += cache[local_i - 2];
    }
    __syncthreads();
    if (i < size) {
        out[i] = sum;
    }
}
