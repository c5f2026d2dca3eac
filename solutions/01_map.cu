// Puzzle 1 · Map: reference solution.
extern "C" __global__ void map(float* out, const float* a) {
    int local_i = threadIdx.x;
    out[local_i] = a[local_i] + 10.0f;
}
