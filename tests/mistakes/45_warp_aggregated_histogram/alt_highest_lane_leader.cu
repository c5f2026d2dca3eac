// expect: pass
// why: the group's highest lane adds the count; any one lane of the group will do.
// Puzzle 45 · Warp-aggregated histogram: hist[v] = how many elements of a equal v, one atomic
// per group of equal values in a warp. Check with `gpuzzle run 45`; stuck? `gpuzzle hint 45`.
extern "C" __global__ void histogram_agg(unsigned int* hist, const unsigned int* a, int n, int bins) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int ln = threadIdx.x & 31;
    unsigned int key = gid < n ? a[gid] : 0xffffffffu;
    unsigned int same = __match_any_sync(0xffffffffu, key);
    int last = 31 - __clz(same);
    if (gid < n && ln == last) {
        atomicAdd(&hist[key], (unsigned int)__popc(same));
    }
}
