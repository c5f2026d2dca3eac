// expect: fail
// kind: wrong-output
// help-has: buf[in] | last round | last written | wrote last
// why: after the loop `in` already names the buffer written last (the swap ends each round);
// why: the learner reads buf[1 - in], the round before. The fix reads buf[in][i].
// Puzzle 19 · Hillis-Steele scan: out[i] = a[0] + ... + a[i], in one block.
extern "C" __global__ void hillis_steele_scan(float* out, const float* a, int size) {
    __shared__ float buf[2][TPB];
    int i = threadIdx.x;
    buf[0][i] = i < size ? a[i] : 0.0f;
    __syncthreads();
    int in = 0;
    for (int d = 1; d < TPB; d *= 2) {
        float v = buf[in][i];
        if (i >= d) {
            v += buf[in][i - d];
        }
        buf[1 - in][i] = v;
        __syncthreads();
        in = 1 - in;
    }
    if (i < size) {
        out[i] = buf[1 - in][i];  // @bug
    }
}
