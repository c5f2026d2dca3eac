// expect: fail
// kind: wrong-output
// help-has: a[k] + a[k] | twice
// why: held-out (stop 44): the scalar tail adds a[k] to itself instead of b[k]; the float4 part is right
// Puzzle 36 · Vectorized loads: out[i] = a[i] + b[i], four elements per thread with float4.
// code for the partial group at the end).
extern "C" __global__ void add4(float* out, const float* a, const float* b, int size) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = 4 * j;
    if (i + 3 < size) {
        float4 x = reinterpret_cast<const float4*>(a)[j];
        float4 y = reinterpret_cast<const float4*>(b)[j];
        reinterpret_cast<float4*>(out)[j] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    } else {
        // The partial group: at most three elements, one at a time.
        for (int k = i; k < size; k++) {
            out[k] = a[k] + a[k];
        }
    }
}
