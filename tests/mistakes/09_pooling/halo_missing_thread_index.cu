// expect: fail
// kind: wrong-output
// why: guards written on threadIdx.x itself, in braces: right for one block, but each later block's first two outputs miss the elements before the block (no halo).
// help-has: halo | previous block | global index
// help-not: __syncthreads()
// help-not: that leaves out thread
// Puzzle 9 · Pooling: out[i] = a[i - 2] + a[i - 1] + a[i] (fewer terms at the start).
extern "C" __global__ void pooling(float* out, const float* a, int size) {
    __shared__ float tile[TPB];
    int gid = threadIdx.x + blockIdx.x * blockDim.x;
    if (gid < size) {
        tile[threadIdx.x] = a[gid];
    }
    __syncthreads();
    if (gid >= size) {
        return;
    }
    float s = tile[threadIdx.x];
    if (threadIdx.x > 0) {
        s += tile[threadIdx.x - 1];
    }
    if (threadIdx.x > 1) {
        s += tile[threadIdx.x - 2];
    }
    out[gid] = s;
}
