// expect: fail
// kind: global-race
// line: @bug
// help-has: blockIdx.x * 32 + slot
// help-not: atomicAdd
// help-not: __threadfence
// why: the slot is right inside the warp, but every block writes it from the front of out.
// Puzzle 28 · Ballot compaction: pack each warp's positive elements to the front of its slice.
extern "C" __global__ void compact(float* out, int* counts, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x;
    float v = i < size ? a[i] : 0.0f;
    bool keep = i < size && v > 0.0f;
    unsigned int kept = __ballot_sync(0xffffffff, keep);
    int slot = __popc(kept & ((1u << lane) - 1));
    if (keep) {
        out[slot] = v;  // @bug
    }
    if (lane == 0) {
        counts[blockIdx.x] = __popc(kept);
    }
}
