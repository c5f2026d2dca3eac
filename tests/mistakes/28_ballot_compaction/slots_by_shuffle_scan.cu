// expect: fail
// kind: over-budget
// counter: shuffles
// why: counts the kept lanes below with an inclusive scan of shuffles (5 __shfl_up_sync steps)
// why: instead of a popcount of the ballot; the puzzle forbids shuffles.
// help-has: __popc | popcount | ballot
// help-not: log2(32)
// Puzzle 28 · Ballot compaction.
extern "C" __global__ void compact(float* out, int* counts, const float* a, int size) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    int me = threadIdx.x;
    float x = gid < size ? a[gid] : 0.0f;
    bool take = gid < size && x > 0.0f;
    unsigned int votes = __ballot_sync(0xffffffff, take);
    int run = take ? 1 : 0;
    for (int d = 1; d < 32; d *= 2) {
        int below = __shfl_up_sync(0xffffffff, run, d);
        if (me >= d) run += below;
    }
    if (take) out[blockIdx.x * 32 + run - 1] = x;
    if (me == 0) counts[blockIdx.x] = __popc(votes);
}
