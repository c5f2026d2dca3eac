// expect: fail
// kind: over-budget
// counter: require:barriers
// why: runs the tree in shared memory down to 64 values, then finishes in the first warp with
// why: shuffles: fast, but the puzzle's lesson is a barrier at every step.
// help-has: shuffle | __shfl_down_sync
// help-has: __syncthreads()
// help-not: ran no barriers
// help-not: log2(32)
// Puzzle 16 · Tree reduction: out[blockIdx.x] = sum of this block's 2 * TPB elements of a.
// Check with `gpuzzle run 16`; stuck? `gpuzzle hint 16`.
extern "C" __global__ void tree_reduction(float* out, const float* a, int size) {
    __shared__ float acc[TPB];
    int me = threadIdx.x;
    int start = blockIdx.x * 2 * TPB;
    float x = start + me < size ? a[start + me] : 0.0f;
    if (start + me + TPB < size) {
        x += a[start + me + TPB];
    }
    acc[me] = x;
    __syncthreads();
    for (int h = TPB / 2; h > 32; h /= 2) {
        if (me < h) {
            acc[me] += acc[me + h];
        }
        __syncthreads();
    }
    if (me < 32) {
        float w = acc[me] + acc[me + 32];
        for (int o = 16; o > 0; o /= 2) {
            w += __shfl_down_sync(0xffffffff, w, o);
        }
        if (me == 0) {
            out[blockIdx.x] = w;
        }
    }
}
