// expect: fail
// kind: wrong-output
// why: the slot is `__popc(votes >> (threadIdx.x & 31)) - 1`, the kept lanes at or above this one: the warp's values come out in reverse.
// help-has: lanes below | - 1) | reverse
// help-not: guard the access
// Puzzle 28 · Ballot compaction: pack each warp's positive elements to the front of its slice.
extern "C" __global__ void compact(float* out, int* counts, const float* a, int size) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x;
    float x = 0.0f;
    if (gid < size) {
        x = a[gid];
    }
    unsigned votes = __ballot_sync(0xffffffffu, gid < size && x > 0.0f);
    if (gid < size && x > 0.0f) {
        int slot = __popc(votes >> (threadIdx.x & 31)) - 1;
        out[blockIdx.x * 32 + slot] = x;
    }
    if ((threadIdx.x & 31) == 0) {
        counts[blockIdx.x] = __popc(votes);
    }
}
