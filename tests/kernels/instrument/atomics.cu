// Histogram with shared-memory atomics, then global atomics; plus atomicMax and atomicCAS.
#define BINS 8
extern "C" __global__ void atomics(int* hist, int* extra, const int* a, int size) {
    __shared__ int local_hist[BINS];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x;
    if (t < BINS) {
        local_hist[t] = 0;
    }
    __syncthreads();
    if (i < size) {
        atomicAdd(&local_hist[a[i] % BINS], 1);
        atomicMax(&extra[0], a[i]);
        atomicCAS(&extra[1], 0, i + 1);
    }
    __syncthreads();
    if (t < BINS) {
        atomicAdd(&hist[t], local_hist[t]);
    }
}
