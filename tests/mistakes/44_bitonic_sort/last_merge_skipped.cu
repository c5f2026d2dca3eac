// expect: fail
// kind: wrong-output
// help-has: <= TPB
// why: the outer loop stops at k < TPB: the last merge, of the two halves of the tile, never runs;
// why: the tile ends as an ascending half followed by a descending half.
// Puzzle 44 · Bitonic sort: sort each tile of TPB elements of a into out, in shared memory.
extern "C" __global__ void tile_sort(int* out, const int* a, int n) {
    __shared__ int keys[TPB];
    int t = threadIdx.x;
    int g = blockIdx.x * TPB + t;
    keys[t] = g < n ? a[g] : 0x7fffffff;
    __syncthreads();
    for (int size = 2; size < TPB; size <<= 1) {  // @bug
        for (int dist = size >> 1; dist > 0; dist >>= 1) {
            int other = t ^ dist;
            if (other > t) {
                int lo = keys[t];
                int hi = keys[other];
                bool up = (t & size) == 0;
                if ((lo > hi) == up) {
                    keys[t] = hi;
                    keys[other] = lo;
                }
            }
            __syncthreads();
        }
    }
    if (g < n) {
        out[g] = keys[t];
    }
}
