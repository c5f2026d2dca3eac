// expect: fail
// kind: over-budget
// counter: shared_writes
// why: scans in place through a register, rounds while `step <= blockDim.x`: the last round,
// why: step = 64, has no lane 64 back, so it only stores every value again.
// help-has: < blockDim.x | one round too many
// help-not: guard the access
// help-not: __syncthreads
// Puzzle 19 · Hillis-Steele scan: out[i] = a[0] + ... + a[i], in one block.
extern "C" __global__ void hillis_steele_scan(float* out, const float* a, int size) {
    __shared__ float vals[TPB];
    int lane = threadIdx.x;
    vals[lane] = lane < size ? a[lane] : 0.0f;
    __syncthreads();
    for (int step = 1; step <= blockDim.x; step <<= 1) {
        float add = 0.0f;
        if (step <= lane) add = vals[lane - step];
        __syncthreads();
        vals[lane] += add;
        __syncthreads();
    }
    if (lane < size) out[lane] = vals[lane];
}
