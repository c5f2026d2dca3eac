// Puzzle 19 · Hillis-Steele scan: out[i] = a[0] + ... + a[i], in one block.
// Check with `gpuzzle run 19`; stuck? `gpuzzle hint 19`.
extern "C" __global__ void hillis_steele_scan(float* out, const float* a, int size) {
    // FILL ME IN (roughly 14 lines). Start from these two, uncommented:
    //   __shared__ float buf[2][TPB];  // two buffers: each round reads one and writes the other
    //   int i = threadIdx.x;
}
