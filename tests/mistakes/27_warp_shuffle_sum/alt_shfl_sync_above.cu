// expect: pass
// why: the fold written with __shfl_sync from lane + offset (the source wraps past lane 31, which only lanes whose result is dropped see), five shuffles
// Puzzle 27 · Warp shuffle sum: out[w] = sum of the 32 elements handled by warp w.
extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    float v = i < size ? a[i] : 0.0f;
#pragma unroll
    for (int offset = 16; offset >= 1; offset >>= 1) {
        v += __shfl_sync(0xffffffff, v, lane + offset);
    }
    if (lane == 0 && i < size) {
        out[i >> 5] = v;
    }
}
