// expect: fail
// kind: wrong-output
// help-has: 16
// help-not: atomicAdd
// why: the fold starts at offset 32: a shuffle down by 32 leaves the warp, so each lane gets its
// why: own v back and doubles it: every warp total is twice the right one. The fix starts at 16.
// Puzzle 27 · Warp shuffle sum: out[w] = sum of the 32 elements handled by warp w.
extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    float acc = g < size ? a[g] : 0.0f;
    for (int d = 32; d >= 1; d >>= 1) {  // @bug
        acc += __shfl_down_sync(0xffffffff, acc, d);
    }
    if (lane == 0 && g < size) {
        out[g / 32] = acc;
    }
}
