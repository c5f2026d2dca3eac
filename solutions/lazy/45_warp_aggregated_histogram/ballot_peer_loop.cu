// lazy: the pre-Volta way: the warp finds each group with a loop of ballots instead of __match_any_sync
extern "C" __global__ void histogram_agg(unsigned int* hist, const unsigned int* a, int n, int bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    unsigned int v = i < n ? a[i] : 0xffffffffu;
    unsigned int todo = __ballot_sync(0xffffffff, i < n);
    while (todo != 0) {
        int leader = __ffs(todo) - 1;
        unsigned int lv = __shfl_sync(0xffffffff, v, leader);
        unsigned int peers = __ballot_sync(0xffffffff, v == lv) & todo;
        if (lane == leader) {
            atomicAdd(&hist[v], (unsigned int)__popc(peers));
        }
        todo &= ~peers;
    }
}
