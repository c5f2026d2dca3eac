// Puzzle 45 · Warp-aggregated histogram: hist[v] = how many elements of a equal v, one atomic
// per group of equal values in a warp. Check with `gpuzzle run 45`; stuck? `gpuzzle hint 45`.
extern "C" __global__ void histogram_agg(unsigned int* hist, const unsigned int* a, int n, int bins) {
    // FILL ME IN (roughly 7 lines). A start, to uncomment:
    //     int i = blockIdx.x * blockDim.x + threadIdx.x;
    //     int lane = threadIdx.x % 32;  // this thread's place in its warp
}
