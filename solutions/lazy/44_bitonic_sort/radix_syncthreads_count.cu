// lazy: no sorting network: a one-bit-at-a-time radix sort whose cross-warp counts come from __syncthreads_count
extern "C" __global__ void tile_sort(int* out, const int* a, int n) {
    __shared__ int s[TPB];
    int t = threadIdx.x;
    int lane = t % 32, warp = t / 32;
    int i = blockIdx.x * TPB + t;
    int v = i < n ? a[i] : 0x7fffffff;
    for (int bit = 0; bit < 32; bit++) {
        // The sign bit orders the other way round: negatives first.
        int one = ((unsigned)v >> bit) & 1;
        int goes_first = bit == 31 ? one : !one;
        int firsts = __syncthreads_count(goes_first);
        unsigned mine = __ballot_sync(TPB >= 32 ? 0xffffffffu : (1u << TPB) - 1, goes_first);
        int below = __popc(mine & ((1u << lane) - 1));  // in this warp, before this lane
        for (int w = 0; w < TPB / 32; w++) {  // the warps below this one
            int c = __syncthreads_count(warp == w && goes_first);
            if (w < warp) {
                below += c;
            }
        }
        int lanes_before = lane + 32 * warp;
        int pos = goes_first ? below : firsts + (lanes_before - below);
        s[pos] = v;
        __syncthreads();
        v = s[t];
        __syncthreads();
    }
    if (i < n) {
        out[i] = v;
    }
}
