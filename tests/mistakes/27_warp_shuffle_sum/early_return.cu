// expect: fail
// kind: warp-sync
// line: @bug
// help-has: 0.0f | zero | return
// help-not: __syncthreads()
// why: lanes past the end return, yet the shuffle's mask promises all 32.
// Puzzle 27 · Warp shuffle sum: out[w] = sum of the 32 elements handled by warp w.
extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    if (i >= size) return;
    float v = a[i];
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_down_sync(0xffffffff, v, offset);  // @bug
    }
    if (lane == 0) {
        out[i / 32] = v;
    }
}
