// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: + 3 < | scalar
// why: takes every group of four as a float4, the last partial group included.
// Puzzle 36 · Vector loads
extern "C" __global__ void add4(float* out, const float* a, const float* b, int size) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (4 * g < size) {
        float4 p = reinterpret_cast<const float4*>(a)[g];  // @bug
        float4 r = reinterpret_cast<const float4*>(b)[g];
        reinterpret_cast<float4*>(out)[g] = make_float4(p.x + r.x, p.y + r.y, p.z + r.z, p.w + r.w);
    }
}
