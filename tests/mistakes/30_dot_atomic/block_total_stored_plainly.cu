// expect: fail
// kind: global-race
// line: @bug
// help-has: atomicAdd
// help-not: __syncthreads()
// why: each block's thread 0 stores its total into out[0] with `=`: the blocks overwrite each
// why: other and only one block's total survives. The fix adds it with atomicAdd(&out[0], ...).
// Puzzle 30 · Dot product across blocks: out[0] = sum of a[i] * b[i], one atomicAdd per block.
extern "C" __global__ void dot_atomic(float* out, const float* a, const float* b, int size) {
    __shared__ float red[TPB];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.x;
    red[t] = g < size ? a[g] * b[g] : 0.0f;
    __syncthreads();
    for (int s = TPB / 2; s > 0; s >>= 1) {
        if (t < s) {
            red[t] += red[t + s];
        }
        __syncthreads();
    }
    if (t == 0) {
        out[0] = red[0];  // @bug
    }
}
