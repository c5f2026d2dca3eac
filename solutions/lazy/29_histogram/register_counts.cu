// lazy: each thread counts its own elements in registers, then one global atomicAdd per bin it saw
extern "C" __global__ void histogram(unsigned int* hist, const unsigned int* a, int n, int bins) {
    unsigned int mine[TPB];
    for (int v = 0; v < bins; v++) {
        mine[v] = 0;
    }
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        mine[a[i]]++;
    }
    for (int v = 0; v < bins; v++) {
        if (mine[v] > 0) {
            atomicAdd(&hist[v], mine[v]);
        }
    }
}
