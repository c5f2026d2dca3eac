// expect: fail
// kind: over-budget
// counter: block_budget:global_atomics
// why: right counts with one atomicAdd per element, no aggregation.
// help-has: __match_any_sync | aggregat | leader | one atomic per group
// help-not: guard the access
// Puzzle 45 · Warp-aggregated histogram: hist[v] = how many elements of a equal v, one atomic
// per group of equal values in a warp. Check with `gpuzzle run 45`; stuck? `gpuzzle hint 45`.
extern "C" __global__ void histogram_agg(unsigned int* hist, const unsigned int* a, int n, int bins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    if (i < n) {
        atomicAdd(&hist[a[i]], 1u);
    }
}
