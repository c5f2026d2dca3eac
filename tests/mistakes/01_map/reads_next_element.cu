// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: a[local_i] | same index | own element
// help-not: if (i < size)
// why: reads the neighbour a[local_i + 1]; the last thread runs off the end.
// Puzzle 1 · Map: out[i] = a[i] + 10, one thread per element.
extern "C" __global__ void map(float* out, const float* a) {
    int local_i = threadIdx.x;
    out[local_i] = a[local_i + 1] + 10.0f;  // @bug
}
