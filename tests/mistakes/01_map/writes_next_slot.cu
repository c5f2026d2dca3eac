// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: out[local_i] | same index | own element
// help-not: if (i < size)
// why: shifts the output by one; thread 3 writes out[4].
// Puzzle 1 · Map: out[i] = a[i] + 10, one thread per element.
extern "C" __global__ void map(float* out, const float* a) {
    int local_i = threadIdx.x;
    out[local_i + 1] = a[local_i] + 10.0f;  // @bug
}
