// expect: fail
// kind: wrong-output
// why: the block's total is handed on by `gid == 0`, the grid's first thread: only block 0's partial sum reaches out[0].
// help-has: threadIdx.x == 0 | each block | one thread of each block
// help-not: guard the access
// help-not: __syncthreads()
// Puzzle 30 · Dot product across blocks: out[0] = sum of a[i] * b[i], one atomicAdd per block.
extern "C" __global__ void dot_atomic(float* out, const float* a, const float* b, int size) {
    __shared__ float partial[TPB];
    int tid = threadIdx.x;
    int gid = tid + blockIdx.x * TPB;
    float prod = 0.0f;
    if (gid < size) {
        prod = a[gid] * b[gid];
    }
    partial[tid] = prod;
    __syncthreads();
    for (int s = TPB / 2; s > 0; s >>= 1) {
        if (tid < s) {
            partial[tid] += partial[tid + s];
        }
        __syncthreads();
    }
    if (gid == 0) {
        atomicAdd(out, partial[0]);
    }
}
