// expect: fail
// kind: wrong-output
// why: steps by blockDim.x: the blocks' elements overlap and are counted several times.
// help-has: gridDim | grid stride | whole grid
// help-not: __syncthreads()
// Puzzle 15 · Grid-stride sum: out[blockIdx.x] = this block's share of the sum of a.
extern "C" __global__ void grid_stride_sum(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = blockDim.x * gridDim.x;
    float sum = 0.0f;
    for (int i = gid; i < size; i += blockDim.x) {
        sum += a[i];
    }
    cache[threadIdx.x] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.0f;
        for (int k = 0; k < TPB; k++) {
            total += cache[k];
        }
        out[blockIdx.x] = total;
    }
}
