// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: local_i]
// help-not: if (i < size)
// why: thinks two inputs means two slots per thread.
// Puzzle 2 · Zip: out[i] = a[i] + b[i], one thread per element.
extern "C" __global__ void zip(float* out, const float* a, const float* b) {
    int local_i = threadIdx.x;
    out[2 * local_i] = a[local_i] + b[local_i];  // @bug
}
