// expect: fail
// kind: wrong-output
// why: a - b instead of a + b.
// help-has: a[i] + b[i] | add b | subtract | + b[
// help-not: guard the access
// Puzzle 2 · Zip: out[i] = a[i] + b[i], one thread per element.
extern "C" __global__ void zip(float* out, const float* a, const float* b) {
    int local_i = threadIdx.x;
    out[local_i] = a[local_i] - b[local_i];
}
