// expect: fail
// kind: wrong-output
// why: lanes past the end take part in the match with key 0, a real value: they join the group of
// why: the zeros and the leader counts them.
// help-has: no value has | 0xffffffff | __ballot_sync | a key
// help-not: passes 0
// Puzzle 45 · Warp-aggregated histogram: hist[v] = how many elements of a equal v, one atomic
// per group of equal values in a warp. Check with `gpuzzle run 45`; stuck? `gpuzzle hint 45`.
extern "C" __global__ void histogram_agg(unsigned int* hist, const unsigned int* a, int n, int bins) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int ln = threadIdx.x & 31;
    unsigned int key = gid < n ? a[gid] : 0u;
    unsigned int same = __match_any_sync(0xffffffffu, key);
    int first = __ffs(same) - 1;
    if (gid < n && ln == first) {
        atomicAdd(&hist[key], (unsigned int)__popc(same));
    }
}
