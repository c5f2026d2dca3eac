// expect: fail
// kind: global-race
// line: @mark
// help-has: i / 32
// why: held-out (stop 44): lane 0 of every warp stores its sum at out[lane], i.e. out[0], instead of its warp slot out[i / 32]
// Puzzle 27 · Warp shuffle sum: out[w] = sum of the 32 elements handled by warp w.
extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    // Out-of-range lanes stay in the warp with 0: the lanes below them read their `v`.
    float v = i < size ? a[i] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_down_sync(0xffffffff, v, offset);
    }
    // Lane 0 of a warp holds an element exactly when the warp is not empty.
    if (lane == 0 && i < size) {
        out[lane] = v;  // @mark
    }
}
