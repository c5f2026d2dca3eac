// expect: fail
// kind: over-budget
// counter: shared_reads
// why: `d <= TPB` adds a seventh round that adds nothing but costs a read.
// help-has: < TPB | one round too many | last round | extra round
// help-not: guard the access
// Puzzle 19 · Hillis-Steele scan: out[i] = a[0] + ... + a[i], in one block.
extern "C" __global__ void hillis_steele_scan(float* out, const float* a, int size) {
    // Two buffers: each round reads one and writes the other.
    __shared__ float buf[2][TPB];
    int i = threadIdx.x;
    buf[0][i] = i < size ? a[i] : 0.0f;
    __syncthreads();
    int in = 0;
    for (int d = 1; d <= TPB; d *= 2) {
        float v = buf[in][i];
        if (i >= d) {
            v += buf[in][i - d];
        }
        buf[1 - in][i] = v;
        __syncthreads();
        in = 1 - in;
    }
    if (i < size) {
        out[i] = buf[in][i];
    }
}
