// lazy: each thread counts how many elements of its tile go before its own and writes it there
extern "C" __global__ void tile_sort(int* out, const int* a, int n) {
    __shared__ int s[TPB];
    int t = threadIdx.x;
    int i = blockIdx.x * TPB + t;
    s[t] = i < n ? a[i] : 0x7fffffff;
    __syncthreads();
    if (i < n) {
        int v = s[t];
        int rank = 0;
        for (int q = 0; q < TPB; q++) {
            int w = s[q];
            rank += (w < v || (w == v && q < t)) ? 1 : 0;
        }
        out[blockIdx.x * TPB + rank] = v;
    }
}
