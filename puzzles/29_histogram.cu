// Puzzle 29 · Histogram: hist[v] = how many elements of a equal v (a shared histogram per block).
// Check with `gpuzzle run 29`; stuck? `gpuzzle hint 29`.
extern "C" __global__ void histogram(unsigned int* hist, const unsigned int* a, int n, int bins) {
    // FILL ME IN (roughly 12 lines). A start:
    //     __shared__ unsigned int block_hist[TPB];  // this block's counts; bins <= TPB
    //     int t = threadIdx.x;
}
