// expect: fail
// kind: wrong-output
// help-has: (t & k) == 0 | ascending
// why: held-out (stop 44): the direction test is inverted: the tile comes out in descending order
// Puzzle 44 · Bitonic sort: sort each tile of TPB elements of a into out, in shared memory.
// memory, the lower thread of each pair ordering it, a barrier after every step).
extern "C" __global__ void tile_sort(int* out, const int* a, int n) {
    __shared__ int s[TPB];  // this block's tile
    int t = threadIdx.x;
    int i = blockIdx.x * TPB + t;
    // Past the end of a, the largest int: it sorts to the end of the tile and is never written.
    s[t] = i < n ? a[i] : 0x7fffffff;
    __syncthreads();
    for (int k = 2; k <= TPB; k *= 2) {      // merge runs of k / 2 into runs of k
        for (int j = k / 2; j > 0; j /= 2) {  // compare at distance j
            int p = t ^ j;                    // this thread's partner
            if (p > t) {
                int x = s[t];
                int y = s[p];
                bool ascending = (t & k) != 0;
                if (ascending ? x > y : x < y) {
                    s[t] = y;
                    s[p] = x;
                }
            }
            __syncthreads();  // every thread, whether it had a pair to order or not
        }
    }
    if (i < n) {
        out[i] = s[t];
    }
}
