// Puzzle 1 · Map: out[i] = a[i] + 10, one thread per element.
// Check with `gpuzzle run 1`; stuck? `gpuzzle hint 1`.
extern "C" __global__ void map(float* out, const float* a) {
    // FILL ME IN (roughly 2 lines), starting from this thread's position:
    // int local_i = threadIdx.x;
}
