// Puzzle 28 · Ballot compaction: reference solution (one ballot, one popcount per lane).
extern "C" __global__ void compact(float* out, int* counts, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x;
    float v = i < size ? a[i] : 0.0f;
    // Lanes past the end vote false (a lane that had returned would count as false too).
    bool keep = i < size && v > 0.0f;
    unsigned int kept = __ballot_sync(0xffffffff, keep);
    if (keep) {
        // The kept lanes below this one come first.
        int slot = __popc(kept & ((1u << lane) - 1));
        out[blockIdx.x * 32 + slot] = v;
    }
    if (lane == 0) {
        counts[blockIdx.x] = __popc(kept);
    }
}
