// lazy: each thread sums its own run of consecutive elements of the block's share (uncoalesced).
extern "C" __global__ void grid_stride_sum(float* out, const float* a, int size) {
    __shared__ float cache[TPB];
    int t = threadIdx.x;
    int threads = blockDim.x * gridDim.x;
    int rounds = (size + threads - 1) / threads;  // elements per thread, rounded up
    float sum = 0.0f;
    // The block's share, in order: round k holds a[k * threads + blockIdx.x * TPB + j], j < TPB.
    for (int m = t * rounds; m < (t + 1) * rounds; m++) {
        int i = (m / TPB) * threads + blockIdx.x * TPB + m % TPB;
        if (i < size) {
            sum += a[i];
        }
    }
    cache[t] = sum;
    __syncthreads();
    if (t == 0) {
        float total = 0.0f;
        for (int k = 0; k < TPB; k++) {
            total += cache[k];
        }
        out[blockIdx.x] = total;
    }
}
