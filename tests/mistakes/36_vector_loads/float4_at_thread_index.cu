// expect: fail
// kind: misaligned
// line: @bug
// help-has: multiple of 4
// why: takes the float4 at &a[j] (the thread index) instead of at element 4 * j.
// Puzzle 36 · Vectorized loads: out[i] = a[i] + b[i], four elements per thread with float4.
// Check with `gpuzzle run 36`; stuck? `gpuzzle hint 36`.
extern "C" __global__ void add4(float* out, const float* a, const float* b, int size) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = 4 * j;
    if (i + 3 < size) {
        float4 x = *reinterpret_cast<const float4*>(&a[j]);  // @bug
        float4 y = *reinterpret_cast<const float4*>(&b[j]);
        float4 r = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
        *reinterpret_cast<float4*>(&out[i]) = r;
    } else {
        for (int k = i; k < size; k++) {
            out[k] = a[k] + b[k];
        }
    }
}
