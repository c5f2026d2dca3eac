// Puzzle 3 · Guard: reference solution.
extern "C" __global__ void guard(float* out, const float* a, int size) {
    int local_i = threadIdx.x;
    if (local_i < size) {
        out[local_i] = a[local_i] + 10.0f;
    }
}
