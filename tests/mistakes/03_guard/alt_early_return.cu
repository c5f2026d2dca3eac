// expect: pass
// why: an early return instead of an if around the work.
// Puzzle 3 · Guard: out[i] = a[i] + 10, with more threads than elements.
extern "C" __global__ void guard(float* out, const float* a, int size) {
    int local_i = threadIdx.x;
    if (local_i >= size) return;
    out[local_i] = a[local_i] + 10.0f;
}
