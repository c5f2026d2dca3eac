// expect: fail
// kind: shared-race
// line: @bug
// help-has: __syncthreads()
// help-has: end of the loop body | each pass | every pass | next pass
// why: orders the compare-exchange steps only once per merge size, after the inner loop, so a step reads what its neighbour step is still writing.
// Puzzle 44 · Bitonic sort
extern "C" __global__ void tile_sort(int* out, const int* a, int n) {
    __shared__ int keys[TPB];
    int me = threadIdx.x;
    int g = blockIdx.x * TPB + me;
    keys[me] = g < n ? a[g] : 0x7fffffff;
    __syncthreads();
    for (int size = 2; size <= TPB; size <<= 1) {
        for (int dist = size >> 1; dist > 0; dist >>= 1) {
            int other = me ^ dist;
            if (other > me) {
                int lo = keys[me];
                int hi = keys[other];
                bool up = (me & size) == 0;
                if (up == (lo > hi)) {
                    keys[me] = hi;  // @bug
                    keys[other] = lo;
                }
            }
        }
        __syncthreads();
    }
    if (g < n) out[g] = keys[me];
}
