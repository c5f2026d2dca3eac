// expect: fail
// kind: shared-race
// line: @r
// help-has: __syncthreads
// why: held-out (stop 43): interleaved tree (t % (2 * step)) with no barrier between rounds.
extern "C" __global__ void block_sum(float* out, const float* a, int size) {
    __shared__ float part[TPB];
    int t = threadIdx.x;
    int gi = blockIdx.x * TPB + t;
    part[t] = (gi < size) ? a[gi] : 0.0f;
    __syncthreads();
    for (int step = 1; step < TPB; step *= 2) {
        if (t % (2 * step) == 0) part[t] += part[t + step];  // @r
    }
    if (t == 0) out[blockIdx.x] = part[0];
}
