// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: size
// help-not: guard the access with a bounds check
// why: compares with the number of threads instead of the number of elements.
// Puzzle 3 · Guard: out[i] = a[i] + 10, with more threads than elements.
extern "C" __global__ void guard(float* out, const float* a, int size) {
    int local_i = threadIdx.x;
    if (local_i < blockDim.x) {
        out[local_i] = a[local_i] + 10.0f;  // @bug
    }
}
