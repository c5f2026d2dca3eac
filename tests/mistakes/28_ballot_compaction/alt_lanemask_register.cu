// expect: pass
// why: the mask of the lanes below taken from the %lanemask_lt register with inline asm instead of (1u << lane) - 1
// Puzzle 28 · Ballot compaction: pack each warp's positive elements to the front of its slice.
__device__ unsigned lanes_below() {
    unsigned m;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
    return m;
}
extern "C" __global__ void compact(float* out, int* counts, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < size ? a[i] : 0.0f;
    bool keep = i < size && v > 0.0f;
    unsigned kept = __ballot_sync(0xffffffff, keep);
    if (keep) {
        out[blockIdx.x * 32 + __popc(kept & lanes_below())] = v;
    }
    if (threadIdx.x == 0) {
        counts[blockIdx.x] = __popc(kept);
    }
}
