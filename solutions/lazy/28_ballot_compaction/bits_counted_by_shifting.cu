// lazy: the ballot is taken, but each lane finds its slot by shifting the ballot right one lane at a time and adding the low bit, a loop of up to 31 steps instead of one __popc; lane 0 counts the whole warp the same way
extern "C" __global__ void compact(float* out, int* counts, const float* a, int size) {
    int lane = threadIdx.x;
    int i = blockIdx.x * 32 + lane;
    float v = i < size ? a[i] : 0.0f;
    bool keep = i < size && v > 0.0f;
    unsigned votes = __ballot_sync(0xffffffffu, keep);
    int before = 0, all = 0;
    for (unsigned rest = votes, k = 0; rest != 0; rest >>= 1, k++) {
        if (k < (unsigned)lane) before += rest & 1u;
        all += rest & 1u;
    }
    if (keep) out[blockIdx.x * 32 + before] = v;
    if (lane == 0) counts[blockIdx.x] = all;
}
