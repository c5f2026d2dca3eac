// expect: pass
// why: a warp shuffle sum in each warp, the two warp totals through shared memory, then thread 0
// why: adds them and makes the block's one atomicAdd (the text allows it).
// Puzzle 30 · Dot product across blocks: out[0] = sum of a[i] * b[i], one atomicAdd per block.
extern "C" __global__ void dot_atomic(float* out, const float* a, const float* b, int size) {
    __shared__ float warp_sums[TPB / 32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < size ? a[i] * b[i] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_down_sync(0xffffffff, v, offset);
    }
    if (threadIdx.x % 32 == 0) {
        warp_sums[threadIdx.x / 32] = v;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.0f;
        for (int w = 0; w < TPB / 32; w++) {
            total += warp_sums[w];
        }
        atomicAdd(&out[0], total);
    }
}
