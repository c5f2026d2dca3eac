// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: b[local_i] | same index
// help-not: if (i < size)
// why: off by one in the second operand only.
// Puzzle 2 · Zip: out[i] = a[i] + b[i], one thread per element.
extern "C" __global__ void zip(float* out, const float* a, const float* b) {
    int local_i = threadIdx.x;
    out[local_i] = a[local_i] + b[local_i + 1];  // @bug
}
