// expect: fail
// kind: over-budget
// counter: sectors_per_access
// why: each thread loads four float4s in a row (q = 4 * t + k), so neighbouring lanes are 64
// why: bytes apart; three quarters of the threads find nothing to do.
// help-has: consecutive | neighbouring lanes | adjacent | one float4 per thread | next lane
// help-not: guard the access
// Puzzle 36 · Vectorized loads: out[i] = a[i] + b[i], four elements per thread with float4.
// Check with `gpuzzle run 36`; stuck? `gpuzzle hint 36`.
extern "C" __global__ void add4(float* out, const float* a, const float* b, int size) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    const float4* va = reinterpret_cast<const float4*>(a);
    const float4* vb = reinterpret_cast<const float4*>(b);
    float4* vo = reinterpret_cast<float4*>(out);
    for (int k = 0; k < 4; k++) {
        int q = 4 * t + k;
        if (4 * q + 3 < size) {
            float4 x = va[q];
            float4 y = vb[q];
            vo[q] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
        } else {
            for (int e = 4 * q; e < size; e++) {
                if (e < 4 * q + 4) out[e] = a[e] + b[e];
            }
        }
    }
}
