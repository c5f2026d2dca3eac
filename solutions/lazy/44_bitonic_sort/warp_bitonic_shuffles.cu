// lazy: the bitonic network's steps inside a warp done on registers with __shfl_xor_sync, shared memory only for the steps that cross warps
extern "C" __global__ void tile_sort(int* out, const int* a, int n) {
    __shared__ int s[TPB];
    int t = threadIdx.x;
    int i = blockIdx.x * TPB + t;
    int x = i < n ? a[i] : 0x7fffffff;
    for (int k = 2; k <= TPB; k *= 2) {
        for (int j = k / 2; j > 0; j /= 2) {
            int y;
            if (j >= 32) {
                s[t] = x;
                __syncthreads();
                y = s[t ^ j];
                __syncthreads();
            } else {
                y = __shfl_xor_sync(0xffffffff, x, j);
            }
            bool ascending = (t & k) == 0;
            bool lowSide = (t & j) == 0;
            int lo = min(x, y), hi = max(x, y);
            x = (ascending == lowSide) ? lo : hi;
        }
    }
    if (i < n) out[i] = x;
}
