// expect: fail
// kind: shared-race
// line: @bug
// help-has: __syncthreads()
// help-not: atomicAdd
// why: thread 0 adds the partials without waiting for them.
// Puzzle 15 · Grid-stride sum: out[blockIdx.x] = this block's share of the sum of a.
extern "C" __global__ void grid_stride_sum(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = blockDim.x * gridDim.x;
    float sum = 0.0f;
    for (int i = gid; i < size; i += stride) {
        sum += a[i];
    }
    cache[threadIdx.x] = sum;
    if (threadIdx.x == 0) {
        float total = 0.0f;
        for (int k = 0; k < TPB; k++) {
            total += cache[k];  // @bug
        }
        out[blockIdx.x] = total;
    }
}
