// expect: fail
// kind: global-race
// line: @bug
// help-has: (1u << lane) - 1
// help-not: atomicAdd
// why: the lane's bit is kept in a local and counted alone: every kept lane gets slot 1.
// Puzzle 28 · Ballot compaction: pack each warp's positive elements to the front of its slice.
extern "C" __global__ void compact(float* out, int* counts, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    float v = i < size ? a[i] : 0.0f;
    bool keep = i < size && v > 0.0f;
    unsigned int votes = __ballot_sync(0xffffffff, keep);
    unsigned int my_bit = 1u << lane;
    int slot = __popc(votes & my_bit);
    if (keep) {
        out[blockIdx.x * 32 + slot] = v;  // @bug
    }
    if (lane == 0) {
        counts[blockIdx.x] = __popc(votes);
    }
}
