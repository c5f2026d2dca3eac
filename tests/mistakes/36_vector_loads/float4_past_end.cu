// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: i + 3 < size | scalar | tail
// why: guards the float4 with `i < size` only: the last, partial group is read as a whole float4.
// Puzzle 36 · Vectorized loads: out[i] = a[i] + b[i], four elements per thread with float4.
// Check with `gpuzzle run 36`; stuck? `gpuzzle hint 36`.
extern "C" __global__ void add4(float* out, const float* a, const float* b, int size) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = 4 * j;
    if (i < size) {
        float4 x = reinterpret_cast<const float4*>(a)[j];  // @bug
        float4 y = reinterpret_cast<const float4*>(b)[j];
        reinterpret_cast<float4*>(out)[j] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
}
