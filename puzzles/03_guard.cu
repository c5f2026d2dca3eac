// Puzzle 3 · Guard: out[i] = a[i] + 10, with more threads than elements.
// Check with `gpuzzle run 3`; stuck? `gpuzzle hint 3`.
extern "C" __global__ void guard(float* out, const float* a, int size) {
    // FILL ME IN (roughly 3 lines), starting from this thread's position:
    // int local_i = threadIdx.x;
}
