// expect: fail
// kind: global-race
// line: @bug
// help-has: threadIdx.x | local_i
// help-not: atomicAdd
// help-not: __syncthreads()
// why: uses blockIdx.x (always 0 here): every thread writes out[0].
// Puzzle 1 · Map: out[i] = a[i] + 10, one thread per element.
extern "C" __global__ void map(float* out, const float* a) {
    int local_i = threadIdx.x;
    out[blockIdx.x] = a[blockIdx.x] + 10.0f;  // @bug
}
