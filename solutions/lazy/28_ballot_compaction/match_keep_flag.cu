// lazy: __match_any_sync on the keep flag instead of a ballot: the kept lanes' mask is the match group of any kept lane; the count is a ballot's popcount
extern "C" __global__ void compact(float* out, int* counts, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x;
    float v = i < size ? a[i] : 0.0f;
    bool keep = i < size && v > 0.0f;
    unsigned same = __match_any_sync(0xffffffff, (int)keep);
    if (keep) out[blockIdx.x * 32 + __popc(same & ((1u << lane) - 1))] = v;
    unsigned kept = __ballot_sync(0xffffffff, keep);
    if (lane == 0) counts[blockIdx.x] = __popc(kept);
}
