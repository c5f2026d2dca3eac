// expect: fail
// kind: over-budget
// counter: require:votes
// why: lets the lanes that drop their element return, then takes the slot from __activemask(),
// why: which says which lanes are running, not a vote.
// help-has: __ballot_sync
// help-has: __activemask
// help-not: ran no votes
// Puzzle 28 · Ballot compaction: pack each warp's positive elements to the front of its slice.
// Check with `gpuzzle run 28`; stuck? `gpuzzle hint 28`.
extern "C" __global__ void compact(float* out, int* counts, const float* a, int size) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int ln = threadIdx.x;
    float val = g < size ? a[g] : 0.0f;
    int kept = __syncthreads_count(g < size && val > 0.0f);
    if (ln == 0) {
        counts[blockIdx.x] = kept;
    }
    if (g >= size || val <= 0.0f) {
        return;
    }
    unsigned int live = __activemask();
    int slot = __popc(live & ((1u << ln) - 1));
    out[blockIdx.x * 32 + slot] = val;
}
