// lazy: every lane runs __popc of the whole ballot, but only lane 0 uses it (for the count); each lane's slot comes from a loop over the lanes below it that tests one bit at a time, kept rolled, so the popcounts of the other lanes feed nothing
extern "C" __global__ void compact(float* out, int* counts, const float* a, int size) {
    int lane = threadIdx.x;
    int i = blockIdx.x * 32 + lane;
    float v = i < size ? a[i] : 0.0f;
    bool keep = i < size && v > 0.0f;
    unsigned ballot = __ballot_sync(0xffffffffu, keep);
    int total = __popc(ballot);
    int slot = 0;
#pragma unroll 1
    for (int b = 0; b < lane; b++) {
        slot += (ballot >> b) & 1u;
    }
    if (keep) out[blockIdx.x * 32 + slot] = v;
    if (lane == 0) counts[blockIdx.x] = total;
}
