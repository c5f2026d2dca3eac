// expect: fail
// kind: wrong-output
// help-has: __ffs(peers) - 1
// why: held-out (stop 44): __ffs counts bits from 1; the leader is taken as __ffs(peers), one lane above the lowest peer
// Puzzle 45 · Warp-aggregated histogram: hist[v] = how many elements of a equal v, one atomic
// with the same value; the lowest lane of each group adds the group's size once).
extern "C" __global__ void histogram_agg(unsigned int* hist, const unsigned int* a, int n, int bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    // Lanes past the end take part with a key no value has (every value is below bins).
    unsigned int v = i < n ? a[i] : 0xffffffffu;
    unsigned int peers = __match_any_sync(0xffffffff, v);  // the lanes with the same value
    int leader = __ffs(peers);                          // the group's lowest lane
    if (i < n && lane == leader) {
        atomicAdd(&hist[v], (unsigned int)__popc(peers));
    }
}
