// lazy: thread 0 insertion-sorts the whole tile in shared memory while the others wait
extern "C" __global__ void tile_sort(int* out, const int* a, int n) {
    __shared__ int s[TPB];
    int t = threadIdx.x;
    int i = blockIdx.x * TPB + t;
    s[t] = i < n ? a[i] : 0x7fffffff;
    __syncthreads();
    if (t == 0) {
        for (int q = 1; q < TPB; q++) {
            int v = s[q];
            int r = q - 1;
            while (r >= 0 && s[r] > v) {
                s[r + 1] = s[r];
                r--;
            }
            s[r + 1] = v;
        }
    }
    __syncthreads();
    if (i < n) {
        out[i] = s[t];
    }
}
