// Puzzle 16 · Tree reduction: out[blockIdx.x] = sum of this block's 2 * TPB elements of a.
// Check with `gpuzzle run 16`; stuck? `gpuzzle hint 16`.
extern "C" __global__ void tree_reduction(float* out, const float* a, int size) {
    // FILL ME IN (roughly 15 lines). You will need:
    //   __shared__ float s[TPB];
    //   int t = threadIdx.x;
    //   int base = blockIdx.x * 2 * TPB;
}
