// expect: fail
// kind: wrong-output
// why: multiplies instead of adding.
// Puzzle 1 · Map: out[i] = a[i] + 10, one thread per element.
extern "C" __global__ void map(float* out, const float* a) {
    int local_i = threadIdx.x;
    out[local_i] = a[local_i] * 10.0f;
}
