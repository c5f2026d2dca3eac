// expect: pass
// why: counts from the top: a lane's slot is the warp's total minus the kept lanes at or above it,
// why: and the last lane writes the count.
// Puzzle 28 · Ballot compaction: pack each warp's positive elements to the front of its slice.
extern "C" __global__ void compact(float* out, int* counts, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x;
    float v = i < size ? a[i] : 0.0f;
    bool keep = i < size && v > 0.0f;
    unsigned int votes = __ballot_sync(0xffffffff, keep);
    int total = __popc(votes);
    if (keep) {
        int from_here_up = __popc(votes >> lane);
        out[blockIdx.x * 32 + total - from_here_up] = v;
    }
    if (lane == 31) {
        counts[blockIdx.x] = total;
    }
}
