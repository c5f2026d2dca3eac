// expect: fail
// kind: wrong-output
// why: double buffer, but never swaps: every round reads the original values.
// help-has: swap | ping | buffer
// help-not: guard the access
// Puzzle 19 · Hillis-Steele scan: out[i] = a[0] + ... + a[i], in one block.
extern "C" __global__ void hillis_steele_scan(float* out, const float* a, int size) {
    // Two buffers: each round reads one and writes the other.
    __shared__ float buf[2][TPB];
    int i = threadIdx.x;
    buf[0][i] = i < size ? a[i] : 0.0f;
    __syncthreads();
    for (int d = 1; d < TPB; d *= 2) {
        float v = buf[0][i];
        if (i >= d) {
            v += buf[0][i - d];
        }
        buf[1][i] = v;
        __syncthreads();
    }
    if (i < size) {
        out[i] = buf[1][i];
    }
}
