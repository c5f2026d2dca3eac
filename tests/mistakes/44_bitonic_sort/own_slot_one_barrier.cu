// expect: fail
// kind: shared-race
// line: @bug
// help-has: __syncthreads()
// help-has: before the write
// help-not: atomic
// help-not: at the end of the loop body
// why: each thread writes only its own slot (min or max of the pair), but with one barrier per
// why: step its partner may already have overwritten the value it reads.
// Puzzle 44 · Bitonic sort: sort each tile of TPB elements of a into out, in shared memory.
// Check with `gpuzzle run 44`; stuck? `gpuzzle hint 44`.
#include <climits>

extern "C" __global__ void tile_sort(int* out, const int* a, int n) {
    __shared__ int v[TPB];
    int t = threadIdx.x;
    int g = blockIdx.x * TPB + t;
    v[t] = g < n ? a[g] : INT_MAX;
    __syncthreads();
    for (int k = 2; k <= TPB; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            int partner = t ^ j;
            int mine = v[t];
            int theirs = v[partner];  // @bug
            bool up = (t & k) == 0;
            bool low = t < partner;
            v[t] = (low == up) ? min(mine, theirs) : max(mine, theirs);
            __syncthreads();
        }
    }
    if (g < n) {
        out[g] = v[t];
    }
}
