// expect: fail
// kind: global-race
// line: @bug
// help-has: atomicAdd
// help-not: __syncthreads()
// why: the leaders add with a plain +=: leaders of other warps add into the same bins.
// Puzzle 45 · Warp-aggregated histogram: hist[v] = how many elements of a equal v, one atomic
// per group of equal values in a warp. Check with `gpuzzle run 45`; stuck? `gpuzzle hint 45`.
extern "C" __global__ void histogram_agg(unsigned int* hist, const unsigned int* a, int n, int bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    unsigned int v = i < n ? a[i] : 0xffffffffu;
    unsigned int peers = __match_any_sync(0xffffffff, v);
    if (i < n && lane == __ffs(peers) - 1) {
        hist[v] += __popc(peers);  // @bug
    }
}
