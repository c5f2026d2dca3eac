// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: INT_MAX | largest | sorts after
// help-not: 0.0f
// why: loads the tile without a guard; the last tile runs past the end of a, and its padding must
// why: sort after every real value.
// Puzzle 44 · Bitonic sort: sort each tile of TPB elements of a into out, in shared memory.
// Check with `gpuzzle run 44`; stuck? `gpuzzle hint 44`.
extern "C" __global__ void tile_sort(int* out, const int* a, int n) {
    __shared__ int keys[TPB];
    int me = threadIdx.x;
    int g = blockIdx.x * TPB + me;
    keys[me] = a[g];  // @bug
    __syncthreads();
    for (int size = 2; size <= TPB; size *= 2) {
        for (int stride = size / 2; stride > 0; stride /= 2) {
            int other = me ^ stride;
            if (other > me) {
                int lo = keys[me];
                int hi = keys[other];
                bool up = (me & size) == 0;
                if (up ? lo > hi : lo < hi) {
                    keys[me] = hi;
                    keys[other] = lo;
                }
            }
            __syncthreads();
        }
    }
    if (g < n) {
        out[g] = keys[me];
    }
}
