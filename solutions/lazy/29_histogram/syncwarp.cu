// lazy: the shared histogram with __syncwarp() where the block needs __syncthreads()
extern "C" __global__ void histogram(unsigned int* hist, const unsigned int* a, int n, int bins) {
    __shared__ unsigned int block_hist[TPB];
    int t = threadIdx.x;
    if (t < bins) {
        block_hist[t] = 0;
    }
    __syncwarp();
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) {
        atomicAdd(&block_hist[a[i]], 1u);
    }
    __syncwarp();
    if (t < bins) {
        atomicAdd(&hist[t], block_hist[t]);
    }
}
