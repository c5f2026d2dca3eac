// Puzzle 2 · Zip: out[i] = a[i] + b[i], one thread per element.
// Check with `gpuzzle run 2`; stuck? `gpuzzle hint 2`.
extern "C" __global__ void zip(float* out, const float* a, const float* b) {
    // FILL ME IN (roughly 2 lines), starting from this thread's position:
    // int local_i = threadIdx.x;
}
