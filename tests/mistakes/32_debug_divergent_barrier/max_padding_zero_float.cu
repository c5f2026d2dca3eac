// expect: fail
// kind: wrong-output
// why: pads the slots past the data with `0.f` before a `max` scan: a block whose elements are all negative reports 0.
// help-has: -FLT_MAX | -INFINITY
// help-has: smaller than every
// help-not: guard the access
// Puzzle 32 · Debug: divergent barrier. out[b] = the largest element of block b's slice of a.
extern "C" __global__ void block_max(float* out, const float* a, int size) {
    __shared__ float vals[TPB];
    int gid = threadIdx.x + blockIdx.x * TPB;
    vals[threadIdx.x] = (gid < size) ? a[gid] : 0.f;
    __syncthreads();
    if (threadIdx.x == 0) {
        float m = vals[0];
        for (int j = 1; j < TPB; ++j) m = max(m, vals[j]);
        out[blockIdx.x] = m;
    }
}
