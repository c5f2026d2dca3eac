// expect: fail
// kind: barrier-divergence
// line: @b
// help-has: out of the if | outside the if | every thread
// why: held-out (stop 43): the barrier sits in the braces of the tree step's guard.
extern "C" __global__ void block_sum(float* out, const float* a, int size) {
    __shared__ float acc[TPB];
    int g = blockIdx.x * TPB + threadIdx.x;
    int me = threadIdx.x;
    acc[me] = g < size ? a[g] : 0.0f;
    __syncthreads();
    for (int half = TPB / 2; half > 0; half >>= 1) {
        if (me < half) {
            acc[me] += acc[me + half];
            __syncthreads();  // @b
        }
    }
    if (me == 0) out[blockIdx.x] = acc[0];
}
