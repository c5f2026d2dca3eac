// expect: fail
// kind: shared-race
// line: @mark
// help-has: buf[in]
// why: held-out (stop 44): the partner is read from the buffer this round writes (buf[1 - in]), not the one it reads
// Puzzle 19 · Hillis-Steele scan: out[i] = a[0] + ... + a[i], in one block.
extern "C" __global__ void hillis_steele_scan(float* out, const float* a, int size) {
    // Two buffers: each round reads one and writes the other.
    __shared__ float buf[2][TPB];
    int i = threadIdx.x;
    buf[0][i] = i < size ? a[i] : 0.0f;
    __syncthreads();
    int in = 0;
    for (int d = 1; d < TPB; d *= 2) {
        float v = buf[in][i];
        if (i >= d) {
            v += buf[1 - in][i - d];  // @mark
        }
        buf[1 - in][i] = v;
        __syncthreads();
        in = 1 - in;
    }
    if (i < size) {
        out[i] = buf[in][i];
    }
}
