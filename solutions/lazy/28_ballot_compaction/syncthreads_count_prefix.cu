// lazy: no ballot: the block is one warp, so each lane's slot is the number of kept lanes below it, counted lane by lane with __syncthreads_count; the count is a ballot's popcount
extern "C" __global__ void compact(float* out, int* counts, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x;
    float v = i < size ? a[i] : 0.0f;
    bool keep = i < size && v > 0.0f;
    int slot = 0;
    for (int j = 1; j < 32; j++) {
        int below = __syncthreads_count(keep && lane < j);
        if (lane == j) slot = below;
    }
    int total = __popc(__ballot_sync(0xffffffff, keep));
    if (keep) out[blockIdx.x * 32 + slot] = v;
    if (lane == 0) counts[blockIdx.x] = total;
}
