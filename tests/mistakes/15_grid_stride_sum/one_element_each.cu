// expect: fail
// kind: wrong-output
// why: no loop: each thread takes only its first element.
// help-has: loop | gridDim | grid stride
// help-not: __syncthreads()
// Puzzle 15 · Grid-stride sum: out[blockIdx.x] = this block's share of the sum of a.
extern "C" __global__ void grid_stride_sum(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = blockDim.x * gridDim.x;
    float sum = gid < size ? a[gid] : 0.0f;
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
