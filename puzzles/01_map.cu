// Puzzle 1 · Map: out[i] = a[i] + 10, one thread per element.
// Check with `gpuzzle run 1`; stuck? `gpuzzle hint 1`.
extern "C" __global__ void map(float* out, const float* a) {
    int local_i = threadIdx.x;
    // FILL ME IN (roughly 1 line)
}
