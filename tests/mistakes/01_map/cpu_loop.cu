// expect: fail
// kind: global-race
// line: @bug
// help-has: loop
// help-not: atomicAdd
// why: writes a loop as on a CPU: every thread does the whole array.
// Puzzle 1 · Map: out[i] = a[i] + 10, one thread per element.
extern "C" __global__ void map(float* out, const float* a) {
    int local_i = threadIdx.x;
    for (int k = 0; k < SIZE; k++) {
        out[k] = a[k] + 10.0f;  // @bug
    }
}
