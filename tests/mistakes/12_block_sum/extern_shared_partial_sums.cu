// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: `partial` is declared `extern __shared__`
// help-has: __shared__ double partial[N]
// help-not: ``
// help-not: < )
// why: a dynamic shared array of another type and name, with no dynamic shared memory in the launch.
// Puzzle 12 · Block sum: out[blockIdx.x] = sum of this block's TPB elements of a.
extern "C" __global__ void block_sum(float* out, const float* a, int size) {
    extern __shared__ double partial[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int per = threadIdx.x;
    partial[per] = i < size ? a[i] : 0.0;  // @bug
    __syncthreads();
    for (int j = TPB / 2; j > 0; j /= 2) {
        if (per < j) {
            partial[per] += partial[per + j];
        }
        __syncthreads();
    }
    if (per == 0) {
        out[blockIdx.x] = (float)partial[0];
    }
}
