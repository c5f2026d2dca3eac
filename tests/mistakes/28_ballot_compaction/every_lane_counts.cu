// expect: fail
// kind: global-race
// line: @bug
// help-has: lane == 0
// help-not: atomicAdd
// why: every lane writes the count.
// Puzzle 28 · Ballot compaction: pack each warp's positive elements to the front of its slice.
extern "C" __global__ void compact(float* out, int* counts, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x;
    float v = i < size ? a[i] : 0.0f;
    bool keep = i < size && v > 0.0f;
    unsigned int kept = __ballot_sync(0xffffffff, keep);
    if (keep) {
        out[blockIdx.x * 32 + __popc(kept & ((1u << lane) - 1))] = v;
    }
    counts[blockIdx.x] = __popc(kept);  // @bug
}
