// expect: pass
// why: in place, the other way the text allows: read into a register, barrier, write, barrier.
// Puzzle 19 · Hillis-Steele scan: out[i] = a[0] + ... + a[i], in one block.
extern "C" __global__ void hillis_steele_scan(float* out, const float* a, int size) {
    // Two buffers: each round reads one and writes the other.
    __shared__ float buf[2][TPB];
    int i = threadIdx.x;
    float* s = buf[0];
    s[i] = i < size ? a[i] : 0.0f;
    __syncthreads();
    for (int d = 1; d < TPB; d *= 2) {
        float v = s[i];
        if (i >= d) {
            v += s[i - d];
        }
        __syncthreads();
        s[i] = v;
        __syncthreads();
    }
    if (i < size) {
        out[i] = s[i];
    }
}
