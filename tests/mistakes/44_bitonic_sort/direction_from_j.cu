// expect: fail
// kind: wrong-output
// why: takes the direction from bit j instead of bit k: the runs are not bitonic.
// help-has: & k | bit k
// help-not: guard the access
// Puzzle 44 · Bitonic sort: sort each tile of TPB elements of a into out, in shared memory.
// Check with `gpuzzle run 44`; stuck? `gpuzzle hint 44`.
extern "C" __global__ void tile_sort(int* out, const int* a, int n) {
    __shared__ int s[TPB];
    int t = threadIdx.x;
    int i = blockIdx.x * TPB + t;
    s[t] = i < n ? a[i] : 0x7fffffff;
    __syncthreads();
    for (int k = 2; k <= TPB; k *= 2) {
        for (int j = k / 2; j > 0; j /= 2) {
            int p = t ^ j;
            if (p > t) {
                int x = s[t];
                int y = s[p];
                bool ascending = (t & j) == 0;
                if (ascending ? x > y : x < y) {
                    s[t] = y;
                    s[p] = x;
                }
            }
            __syncthreads();
        }
    }
    if (i < n) {
        out[i] = s[t];
    }
}
