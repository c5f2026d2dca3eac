// expect: pass
// why: every thread reads its pair and keeps the min or the max in its own slot, with a barrier between the reads and the writes.
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
            int mine = s[t];
            int other = s[p];
            __syncthreads();
            bool ascending = (t & k) == 0;
            bool lower = t < p;
            // The lower slot of an ascending pair keeps the min, and so on.
            s[t] = (ascending == lower) ? min(mine, other) : max(mine, other);
            __syncthreads();
        }
    }
    if (i < n) {
        out[i] = s[t];
    }
}
