// expect: fail
// kind: wrong-output
// why: `kept >> lane` counts the lane itself and the lanes above it: the order comes out reversed.
// help-has: lanes below | (1u << lane) - 1 | lower lanes | reversed | below it
// help-not: guard the access
// Puzzle 28 · Ballot compaction: pack each warp's positive elements to the front of its slice.
extern "C" __global__ void compact(float* out, int* counts, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x;
    float v = i < size ? a[i] : 0.0f;
    bool keep = i < size && v > 0.0f;
    unsigned int kept = __ballot_sync(0xffffffff, keep);
    if (keep) {
        out[blockIdx.x * 32 + __popc(kept >> lane) - 1] = v;
    }
    if (lane == 0) {
        counts[blockIdx.x] = __popc(kept);
    }
}
