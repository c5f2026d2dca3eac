// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: < size
// help-not: atomicAdd
// why: forgets that there are more threads than elements.
// Puzzle 3 · Guard: out[i] = a[i] + 10, with more threads than elements.
extern "C" __global__ void guard(float* out, const float* a, int size) {
    int local_i = threadIdx.x;
    out[local_i] = a[local_i] + 10.0f;  // @bug
}
