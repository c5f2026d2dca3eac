// Puzzle 20 · Blelloch scan: out[i] = a[0] + ... + a[i - 1] (exclusive), in one block.
// Check with `gpuzzle run 20`; stuck? `gpuzzle hint 20`.
extern "C" __global__ void blelloch_scan(float* out, const float* a, int size) {
    // FILL ME IN (roughly 30 lines). Start from these lines, uncommented:
    //   __shared__ float s[N];  // two elements per thread: the block scans up to N = 2 * TPB values
    //   int t = threadIdx.x;
    //   s[t] = t < size ? a[t] : 0.0f;
    //   s[t + TPB] = t + TPB < size ? a[t + TPB] : 0.0f;
}
