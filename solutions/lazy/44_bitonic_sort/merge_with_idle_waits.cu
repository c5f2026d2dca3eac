// lazy: the binary-search merge sort (two waits per merge), topped up with __syncthreads() in a loop that does nothing else until the block has waited as often as the bitonic network would: the barrier count matches, the barriers that order something do not
__device__ int rank_in(const int* run, int len, int x, bool ties_before) {
    int lo = 0, hi = len;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        bool before = ties_before ? run[mid] <= x : run[mid] < x;
        if (before) lo = mid + 1; else hi = mid;
    }
    return lo;
}
extern "C" __global__ void tile_sort(int* out, const int* a, int n) {
    __shared__ int tile[TPB];
    int me = threadIdx.x;
    int g = blockIdx.x * TPB + me;
    tile[me] = g < n ? a[g] : 0x7fffffff;
    __syncthreads();
    int waits = 1;
    for (int width = 1; width < TPB; width *= 2) {
        int v = tile[me];
        int lo = me & ~(2 * width - 1);
        int off = me - lo;
        int dest = off < width ? off + rank_in(tile + lo + width, width, v, false)
                               : off - width + rank_in(tile + lo, width, v, true);
        __syncthreads();
        tile[lo + dest] = v;
        __syncthreads();
        waits += 2;
    }
    int levels = 0;
    for (int w = 1; w < TPB; w *= 2) levels++;
    int network = 1 + levels * (levels + 1) / 2;
    while (waits < network) { __syncthreads(); waits++; }
    if (g < n) out[g] = tile[me];
}
