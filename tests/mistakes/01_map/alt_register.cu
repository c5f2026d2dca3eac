// expect: pass
// why: threadIdx.x used directly, the value kept in a register first.
// Puzzle 1 · Map: out[i] = a[i] + 10, one thread per element.
extern "C" __global__ void map(float* out, const float* a) {
    float v = a[threadIdx.x];
    out[threadIdx.x] = 10.0f + v;
}
