// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: i < size
// help-not: return
// why: reads a[i] in every lane, past the end in the last warp.
// Puzzle 28 · Ballot compaction: pack each warp's positive elements to the front of its slice.
extern "C" __global__ void compact(float* out, int* counts, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x;
    float v = a[i];  // @bug
    bool keep = v > 0.0f;
    unsigned int kept = __ballot_sync(0xffffffff, keep);
    if (keep) {
        out[blockIdx.x * 32 + __popc(kept & ((1u << lane) - 1))] = v;
    }
    if (lane == 0) {
        counts[blockIdx.x] = __popc(kept);
    }
}
