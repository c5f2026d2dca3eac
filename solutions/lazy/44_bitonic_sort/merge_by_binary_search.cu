// lazy: no sorting network: a merge sort whose every merge places each element by a binary search for its rank in the neighbouring run
__device__ int lower(const int* r, int len, int x) {
    int lo = 0, hi = len;
    while (lo < hi) { int mid = (lo + hi) / 2; if (r[mid] < x) lo = mid + 1; else hi = mid; }
    return lo;
}
__device__ int upper(const int* r, int len, int x) {
    int lo = 0, hi = len;
    while (lo < hi) { int mid = (lo + hi) / 2; if (r[mid] <= x) lo = mid + 1; else hi = mid; }
    return lo;
}
extern "C" __global__ void tile_sort(int* out, const int* a, int n) {
    __shared__ int s[TPB];
    int t = threadIdx.x;
    int i = blockIdx.x * TPB + t;
    s[t] = i < n ? a[i] : 0x7fffffff;
    __syncthreads();
    for (int run = 1; run < TPB; run *= 2) {
        int x = s[t];
        int start = t & ~(2 * run - 1);
        int pos = t - start;
        int rank;
        if (pos < run) rank = pos + lower(s + start + run, run, x);
        else rank = (pos - run) + upper(s + start, run, x);
        __syncthreads();
        s[start + rank] = x;
        __syncthreads();
    }
    if (i < n) out[i] = s[t];
}
