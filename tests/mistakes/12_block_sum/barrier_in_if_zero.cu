// expect: fail
// kind: shared-race
// line: @race
// help-has: __syncthreads()
// help-not: already orders
// help-not: did not pass it together
// why: the copy-in's barrier was switched off with `#if 0` while debugging, and the reduction reads before every slot is filled.
// Puzzle 12 · Block sum: out[blockIdx.x] = sum of this block's TPB elements of a.
extern "C" __global__ void block_sum(float* out, const float* a, int size) {
    __shared__ float partial[TPB];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int me = threadIdx.x;
    partial[me] = g < size ? a[g] : 0.0f;
#if 0
    __syncthreads();
#endif
    for (int half = TPB / 2; half > 0; half /= 2) {
        if (me < half) {
            partial[me] += partial[me + half];  // @race
        }
        __syncthreads();
    }
    if (me == 0) {
        out[blockIdx.x] = partial[0];
    }
}
