// expect: fail
// kind: wrong-output
// why: over-corrects the off-by-one: the last element is never written.
// help-has: < size | last element | never written | no thread wrote | size - 1
// help-not: guard the access
// Puzzle 3 · Guard: out[i] = a[i] + 10, with more threads than elements.
extern "C" __global__ void guard(float* out, const float* a, int size) {
    int local_i = threadIdx.x;
    if (local_i < size - 1) {
        out[local_i] = a[local_i] + 10.0f;
    }
}
