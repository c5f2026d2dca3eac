// expect: fail
// kind: wrong-output
// why: guards the neighbour reads with `t - 1 >= 0` and `t - 2 >= 0` on the thread's index in its block: right inside a block, but no halo, so each later block's first two outputs lose the values before it.
// help-has: halo | previous block | global index
// help-not: __syncthreads()
// help-not: that leaves out thread
// Puzzle 9 · Pooling: out[i] = a[i - 2] + a[i - 1] + a[i] (fewer terms at the start).
extern "C" __global__ void pooling(float* out, const float* a, int size) {
    __shared__ float win[TPB];
    int t = threadIdx.x;
    int g = blockIdx.x * blockDim.x + t;
    win[t] = g < size ? a[g] : 0.0f;
    __syncthreads();
    if (g < size) {
        float acc = win[t];
        if (t - 1 >= 0) acc += win[t - 1];
        if (t - 2 >= 0) acc += win[t - 2];
        out[g] = acc;
    }
}
