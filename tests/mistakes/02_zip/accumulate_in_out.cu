// expect: fail
// kind: over-budget
// counter: global_writes
// why: builds the sum in out: reads out back, three reads and two writes.
// help-has: register | once | one write
// help-not: guard the access
// Puzzle 2 · Zip: out[i] = a[i] + b[i], one thread per element.
extern "C" __global__ void zip(float* out, const float* a, const float* b) {
    int local_i = threadIdx.x;
    out[local_i] = a[local_i];
    out[local_i] = out[local_i] + b[local_i];
}
