// expect: fail
// kind: uninitialized-read
// line: @r
// help-has: 0.0f | neutral
// why: held-out (stop 43): the last block's tail of acc is never stored, the tree reads it; other names (acc, me, half).
extern "C" __global__ void block_sum(float* out, const float* a, int size) {
    __shared__ float acc[TPB];
    int g = blockIdx.x * TPB + threadIdx.x;
    int me = threadIdx.x;
    if (g < size) acc[me] = a[g];
    __syncthreads();
    for (int half = TPB / 2; half > 0; half /= 2) {
        if (me < half) acc[me] += acc[me + half];  // @r
        __syncthreads();
    }
    if (me == 0) out[blockIdx.x] = acc[0];
}
