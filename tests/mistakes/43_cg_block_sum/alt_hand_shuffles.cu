// expect: pass
// why: no cooperative groups at all: the two warp sums with __shfl_down_sync, as in puzzle 27 (the description says cg::reduce does the same work).
// Puzzle 43 · Block sum with cooperative groups: out[j] = the sum of block j's TPB elements.
// Check with `gpuzzle run 43`; stuck? `gpuzzle hint 43`.
extern "C" __global__ void block_sum_cg(float* out, const float* a, int n) {
    __shared__ float warp_sums[TPB / 32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int w = threadIdx.x / 32;
    float v = i < n ? a[i] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_down_sync(0xffffffff, v, offset);
    }
    if (lane == 0) {
        warp_sums[w] = v;
    }
    __syncthreads();
    if (w == 0) {
        float t = lane < TPB / 32 ? warp_sums[lane] : 0.0f;
        for (int offset = 16; offset > 0; offset /= 2) {
            t += __shfl_down_sync(0xffffffff, t, offset);
        }
        if (lane == 0) {
            out[blockIdx.x] = t;
        }
    }
}
