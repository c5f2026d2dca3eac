// expect: pass
// why: the partials added by a tree instead of thread 0.
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
    __syncthreads();
    for (int s = TPB / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) {
            cache[threadIdx.x] += cache[threadIdx.x + s];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        out[blockIdx.x] = cache[0];
    }
}
