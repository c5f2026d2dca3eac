// expect: fail
// kind: global-race
// line: @bug
// help-has: lane == 0
// help-not: atomicAdd
// why: every lane writes its (partial) value to the warp's output.
// Puzzle 27 · Warp shuffle sum: out[w] = sum of the 32 elements handled by warp w.
extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    float v = i < size ? a[i] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_down_sync(0xffffffff, v, offset);
    }
    if (i < size) {
        out[i / 32] = v;  // @bug
    }
}
