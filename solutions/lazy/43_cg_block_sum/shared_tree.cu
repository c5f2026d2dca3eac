// lazy: the shared-memory tree of puzzle 12, no groups and no warp reduce
extern "C" __global__ void block_sum_cg(float* out, const float* a, int n) {
    __shared__ float cache[TPB];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x;
    cache[t] = i < n ? a[i] : 0.0f;
    __syncthreads();
    for (int stride = TPB / 2; stride > 0; stride /= 2) {
        if (t < stride) {
            cache[t] += cache[t + stride];
        }
        __syncthreads();
    }
    if (t == 0) {
        out[blockIdx.x] = cache[0];
    }
}
