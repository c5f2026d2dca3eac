// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: <=
// help-not: add a bounds check
// why: the guard is there but lets thread `size` through.
// Puzzle 3 · Guard: out[i] = a[i] + 10, with more threads than elements.
extern "C" __global__ void guard(float* out, const float* a, int size) {
    int local_i = threadIdx.x;
    if (local_i <= size) {
        out[local_i] = a[local_i] + 10.0f;  // @bug
    }
}
