// expect: fail
// kind: wrong-output
// why: pads a short last tile with zeros, which sort in among the real values and get written.
// help-has: INT_MAX | FLT_MAX | largest | INFINITY | max value | larger than every value
// help-not: guard the access
// help-not: off-by-one
// Puzzle 44 · Bitonic sort: sort each tile of TPB elements of a into out, in shared memory.
// Check with `gpuzzle run 44`; stuck? `gpuzzle hint 44`.
extern "C" __global__ void tile_sort(int* out, const int* a, int n) {
    __shared__ int s[TPB];
    int t = threadIdx.x;
    int i = blockIdx.x * TPB + t;
    s[t] = i < n ? a[i] : 0;
    __syncthreads();
    for (int k = 2; k <= TPB; k *= 2) {
        for (int j = k / 2; j > 0; j /= 2) {
            int p = t ^ j;
            if (p > t) {
                int x = s[t];
                int y = s[p];
                bool ascending = (t & k) == 0;
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
