// lazy: lane 0 reads its warp's 32 values itself and adds each run of equal values with one atomic
extern "C" __global__ void histogram_agg(unsigned int* hist, const unsigned int* a, int n, int bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x % 32 == 0) {
        int k = i;
        while (k < i + 32 && k < n) {
            unsigned int v = a[k];
            unsigned int run = 0;
            while (k < i + 32 && k < n && a[k] == v) {
                run++;
                k++;
            }
            atomicAdd(&hist[v], run);
        }
    }
}
