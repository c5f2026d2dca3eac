// expect: pass
// why: counts the lanes below by shifting the ballot left instead of masking it.
// Puzzle 28 · Ballot compaction: pack each warp's positive elements to the front of its slice.
extern "C" __global__ void compact(float* out, int* counts, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x;
    float v = i < size ? a[i] : 0.0f;
    bool keep = i < size && v > 0.0f;
    unsigned int kept = __ballot_sync(0xffffffff, keep);
    int below = lane == 0 ? 0 : __popc(kept << (32 - lane));
    if (keep) {
        out[blockIdx.x * 32 + below] = v;
    }
    if (lane == 0) {
        counts[blockIdx.x] = __popc(kept);
    }
}
