// expect: fail
// kind: wrong-output
// why: __shfl_up_sync moves the sum towards lane 31, but lane 0 writes.
// help-has: __shfl_down_sync | shfl_down | lane 31 | last lane
// help-not: guard the access
// Puzzle 27 · Warp shuffle sum: out[w] = sum of the 32 elements handled by warp w.
extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    float v = i < size ? a[i] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_up_sync(0xffffffff, v, offset);
    }
    if (lane == 0 && i < size) {
        out[i / 32] = v;
    }
}
