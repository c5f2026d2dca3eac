// expect: fail
// kind: global-race
// line: @bug
// help-has: (1u << lane) - 1 | lanes below | below this lane | lower lanes
// help-not: atomicAdd
// why: every kept lane takes __popc of the whole ballot as its slot, so all kept lanes of a warp
// why: write the same place. The fix counts only the kept lanes below: __popc(kept & ((1u << lane) - 1)).
// Puzzle 28 · Ballot compaction: pack each warp's positive elements to the front of its slice.
extern "C" __global__ void compact(float* out, int* counts, const float* a, int size) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x;
    float x = g < size ? a[g] : 0.0f;
    bool pos = g < size && x > 0.0f;
    unsigned int votes = __ballot_sync(0xffffffff, pos);
    int n = __popc(votes);
    if (pos) {
        out[blockIdx.x * 32 + n - 1] = x;  // @bug
    }
    if (lane == 0) {
        counts[blockIdx.x] = n;
    }
}
