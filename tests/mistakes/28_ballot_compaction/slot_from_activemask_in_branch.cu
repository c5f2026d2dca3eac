// expect: fail
// kind: over-budget
// counter: activemask
// why: every lane votes once (for the count), but the slot comes from __activemask() inside
// why: if (keep): the lanes running the branch, not a vote.
// help-has: __activemask
// help-has: __ballot_sync
// help-not: log2(32)
// Puzzle 28 · Ballot compaction: pack each warp's positive elements to the front of its slice.
extern "C" __global__ void compact(float* out, int* counts, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x;
    float v = i < size ? a[i] : 0.0f;
    bool keep = i < size && v > 0.0f;
    unsigned int kept = __ballot_sync(0xffffffff, keep);
    if (keep) {
        unsigned int here = __activemask();
        out[blockIdx.x * 32 + __popc(here & ((1u << lane) - 1))] = v;
    }
    if (lane == 0) counts[blockIdx.x] = __popc(kept);
}
