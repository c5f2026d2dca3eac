// expect: pass
// why: a butterfly with __shfl_xor_sync: every lane ends with the total.
// Puzzle 27 · Warp shuffle sum: out[w] = sum of the 32 elements handled by warp w.
extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    float v = i < size ? a[i] : 0.0f;
    for (int mask = 1; mask < 32; mask <<= 1) {
        v += __shfl_xor_sync(0xffffffff, v, mask);
    }
    if (lane == 0 && i < size) {
        out[i / 32] = v;
    }
}
