// expect: fail
// kind: wrong-output
// why: the slots past n get 0 in the `else` of the load: zeros sort in among the real values of the last tile, and the ones that land in front are written.
// help-has: INT_MAX | larger than every value | largest value
// help-not: off-by-one
// help-not: guard the access
// Puzzle 44 · Bitonic sort: sort each tile of TPB elements of a into out, in shared memory.
extern "C" __global__ void tile_sort(int* out, const int* a, int n) {
    __shared__ int keys[TPB];
    int lane = threadIdx.x;
    int g = blockIdx.x * TPB + lane;
    if (g < n) {
        keys[lane] = a[g];
    } else {
        keys[lane] = 0;
    }
    __syncthreads();
    for (int size = 2; size <= TPB; size <<= 1) {
        for (int stride = size >> 1; stride > 0; stride >>= 1) {
            int partner = lane ^ stride;
            if (partner > lane) {
                int lo = keys[lane];
                int hi = keys[partner];
                bool up = (lane & size) == 0;
                if (up == (lo > hi)) {
                    keys[lane] = hi;
                    keys[partner] = lo;
                }
            }
            __syncthreads();
        }
    }
    if (g < n) {
        out[g] = keys[lane];
    }
}
