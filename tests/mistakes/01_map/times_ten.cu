// expect: fail
// kind: wrong-output
// why: multiplies instead of adding.
// help-has: + 10 | add 10 | adds 10 | multipl
// help-not: guard the access
// Puzzle 1 · Map: out[i] = a[i] + 10, one thread per element.
extern "C" __global__ void map(float* out, const float* a) {
    int local_i = threadIdx.x;
    out[local_i] = a[local_i] * 10.0f;
}
