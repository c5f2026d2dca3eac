// expect: fail
// kind: shared-race
// line: @bug
// help-has: register | two buffers | double buffer | other buffer | buf[1
// help-not: atomicAdd
// why: the trap of the puzzle: s[i] += s[i - d] in place, with one barrier per round.
// Puzzle 19 · Hillis-Steele scan: out[i] = a[0] + ... + a[i], in one block.
extern "C" __global__ void hillis_steele_scan(float* out, const float* a, int size) {
    // Two buffers: each round reads one and writes the other.
    __shared__ float buf[2][TPB];
    int i = threadIdx.x;
    float* s = buf[0];
    s[i] = i < size ? a[i] : 0.0f;
    __syncthreads();
    for (int d = 1; d < TPB; d *= 2) {
        if (i >= d) {
            s[i] += s[i - d];  // @bug
        }
        __syncthreads();
    }
    if (i < size) {
        out[i] = s[i];
    }
}
