// Puzzle 19 · Hillis-Steele scan: out[i] = a[0] + ... + a[i], in one block.
// Check with `gpuzzle run 19`; stuck? `gpuzzle hint 19`.
extern "C" __global__ void hillis_steele_scan(float* out, const float* a, int size) {
    // Two buffers: each round reads one and writes the other.
    __shared__ float buf[2][TPB];
    int i = threadIdx.x;
    // FILL ME IN (roughly 10 lines)
}
