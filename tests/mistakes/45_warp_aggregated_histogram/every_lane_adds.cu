// expect: fail
// kind: wrong-output
// why: every lane of a group adds the group's size, so a group of k lanes counts k * k.
// help-has: leader | one lane | lowest lane | __ffs
// help-not: guard the access
// Puzzle 45 · Warp-aggregated histogram: hist[v] = how many elements of a equal v, one atomic
// per group of equal values in a warp. Check with `gpuzzle run 45`; stuck? `gpuzzle hint 45`.
extern "C" __global__ void histogram_agg(unsigned int* hist, const unsigned int* a, int n, int bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    unsigned int v = i < n ? a[i] : 0xffffffffu;
    unsigned int peers = __match_any_sync(0xffffffff, v);
    if (i < n) {
        atomicAdd(&hist[v], (unsigned int)__popc(peers));
    }
}
