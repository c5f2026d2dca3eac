// expect: pass
// why: every lane takes part in the match (lanes past n with a value no element has), and the group's leader is the lowest set bit taken with __ffs of the peers below and including it
// Puzzle 45 · Warp-aggregated histogram: hist[v] = how many elements of a equal v, one atomic
// per group of equal values in a warp. Check with `gpuzzle run 45`; stuck? `gpuzzle hint 45`.
extern "C" __global__ void histogram_agg(unsigned int* hist, const unsigned int* a, int n, int bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int lane = threadIdx.x % 32;
    unsigned int v = i < n ? a[i] : (unsigned int)bins;
    unsigned int peers = __match_any_sync(0xffffffffu, v);
    bool leader = (peers & ((1u << lane) - 1u)) == 0u;
    if (i < n && leader) {
        atomicAdd(hist + v, (unsigned int)__popc(peers));
    }
}
