// expect: fail
// kind: global-race
// line: @bug
// help-has: offset | base
// help-not: atomicAdd
// why: the scalar loop for the partial group counts from 0 instead of from the group's start, so
// why: the last elements are never written and the first ones are written twice.
// Puzzle 36 · Vectorized loads: out[i] = a[i] + b[i], four elements per thread with float4.
// Check with `gpuzzle run 36`; stuck? `gpuzzle hint 36`.
extern "C" __global__ void add4(float* out, const float* a, const float* b, int size) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int base = g * 4;
    if (base + 3 < size) {
        float4 va = reinterpret_cast<const float4*>(a)[g];
        float4 vb = reinterpret_cast<const float4*>(b)[g];
        float4 r;
        r.x = va.x + vb.x;
        r.y = va.y + vb.y;
        r.z = va.z + vb.z;
        r.w = va.w + vb.w;
        reinterpret_cast<float4*>(out)[g] = r;
    } else if (base < size) {
        for (int r = 0; r < size - base; r++) {
            out[r] = a[r] + b[r];  // @bug
        }
    }
}
