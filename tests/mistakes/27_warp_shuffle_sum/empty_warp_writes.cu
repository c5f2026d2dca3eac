// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: i < size
// help-not: atomicAdd
// why: lane 0 of the empty last warp writes a total that has no slot.
// Puzzle 27 · Warp shuffle sum: out[w] = sum of the 32 elements handled by warp w.
extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    float v = i < size ? a[i] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_down_sync(0xffffffff, v, offset);
    }
    if (lane == 0) {
        out[i / 32] = v;  // @bug
    }
}
