// expect: fail
// kind: wrong-output
// why: one array of two halves, `temp[2 * TPB]`: every round reads the lower half and writes the upper one, so the halves never change roles.
// help-has: swap | ping-pong
// help-has: temp[src * TPB
// help-not: guard the access
// Puzzle 19 · Hillis-Steele scan: out[i] = a[0] + ... + a[i], in one block.
extern "C" __global__ void hillis_steele_scan(float* out, const float* a, int size) {
    __shared__ float temp[2 * TPB];
    int i = threadIdx.x;
    temp[i] = i < size ? a[i] : 0.0f;
    __syncthreads();
    for (int d = 1; d < TPB; d <<= 1) {
        float v = temp[i];
        if (i >= d) {
            v += temp[i - d];
        }
        temp[TPB + i] = v;
        __syncthreads();
    }
    if (i < size) {
        out[i] = temp[TPB + i];
    }
}
