// expect: pass
// why: matches only among the lanes that hold a value, with their mask from __ballot_sync; the leader is the highest lane.
// Puzzle 45 · Warp-aggregated histogram: hist[v] = how many elements of a equal v, one atomic
// per group of equal values in a warp. Check with `gpuzzle run 45`; stuck? `gpuzzle hint 45`.
extern "C" __global__ void histogram_agg(unsigned int* hist, const unsigned int* a, int n, int bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    unsigned int valid = __ballot_sync(0xffffffff, i < n);
    if (i < n) {
        unsigned int v = a[i];
        unsigned int peers = __match_any_sync(valid, v);
        if (lane == 31 - __clz(peers)) {
            atomicAdd(&hist[v], (unsigned int)__popc(peers));
        }
    }
}
