// Puzzle 44 · Bitonic sort: sort each tile of TPB elements of a into out, in shared memory.
// Check with `gpuzzle run 44`; stuck? `gpuzzle hint 44`.
extern "C" __global__ void tile_sort(int* out, const int* a, int n) {
    // FILL ME IN (roughly 20 lines). A start, to uncomment:
    //     __shared__ int s[TPB];  // this block's tile
    //     int t = threadIdx.x;
    //     int i = blockIdx.x * TPB + t;
}
