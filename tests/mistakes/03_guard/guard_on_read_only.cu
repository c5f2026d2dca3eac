// expect: fail
// kind: out-of-bounds
// line: @mark
// help-has: if (local_i < size)
// why: held-out (stop 44): the read is guarded by a conditional expression but the store to out is not
// Puzzle 3 · Guard: out[i] = a[i] + 10, with more threads than elements.
extern "C" __global__ void guard(float* out, const float* a, int size) {
    int local_i = threadIdx.x;
    out[local_i] = local_i < size ? a[local_i] + 10.0f : 0.0f;  // @mark
}
