// expect: fail
// kind: warp-sync
// line: @bug
// help-has: outside | every lane
// help-not: __syncthreads()
// why: matches only in the lanes that have a value: in the last, partly full warp the others never come.
// Puzzle 45 · Warp-aggregated histogram: hist[v] = how many elements of a equal v, one atomic
// per group of equal values in a warp. Check with `gpuzzle run 45`; stuck? `gpuzzle hint 45`.
extern "C" __global__ void histogram_agg(unsigned int* hist, const unsigned int* a, int n, int bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    if (i < n) {
        unsigned int v = a[i];
        unsigned int peers = __match_any_sync(0xffffffff, v);  // @bug
        if (lane == __ffs(peers) - 1) {
            atomicAdd(&hist[v], (unsigned int)__popc(peers));
        }
    }
}
