// expect: fail
// kind: shared-race
// line: @bug
// help-has: __syncthreads()
// help-not: atomicAdd
// why: "fixes" it with __syncwarp(): thread 31 reads tile[33], stored by thread 32 of the other warp.
// Puzzle 31 · Debug: missing barrier. out[i] = a[i - 1] + a[i] + a[i + 1] (0 outside a).
extern "C" __global__ void sum3(float* out, const float* a, int size) {
    __shared__ float tile[TPB + 2];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x + 1;  // tile[0] and tile[TPB + 1] hold the block's outer neighbours
    tile[t] = i < size ? a[i] : 0.0f;
    if (threadIdx.x == 0) {
        tile[0] = i > 0 && i <= size ? a[i - 1] : 0.0f;
    }
    if (threadIdx.x == TPB - 1) {
        tile[TPB + 1] = i + 1 < size ? a[i + 1] : 0.0f;
    }
    __syncwarp();
    if (i < size) {
        out[i] = tile[t - 1] + tile[t] + tile[t + 1];  // @bug
    }
}
