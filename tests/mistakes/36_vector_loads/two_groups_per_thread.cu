// expect: fail
// kind: over-budget
// counter: sectors_per_access
// why: each thread takes the float4s j and j + 1 of a group of eight, so neighbouring lanes are
// why: 32 bytes apart and every sector is half used; the second half of the threads idle.
// help-has: consecutive | neighbouring lanes | adjacent | one float4 per thread | next lane
// help-not: guard the access
// Puzzle 36 · Vectorized loads: out[i] = a[i] + b[i], four elements per thread with float4.
// Check with `gpuzzle run 36`; stuck? `gpuzzle hint 36`.
extern "C" __global__ void add4(float* out, const float* a, const float* b, int size) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    const float4* a4 = reinterpret_cast<const float4*>(a);
    const float4* b4 = reinterpret_cast<const float4*>(b);
    float4* out4 = reinterpret_cast<float4*>(out);
    for (int j = 2 * t; j < 2 * t + 2; j++) {
        int i = 4 * j;
        if (i + 3 < size) {
            float4 x = a4[j];
            float4 y = b4[j];
            out4[j] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
        } else {
            for (int k = i; k < size && k < i + 4; k++) {
                out[k] = a[k] + b[k];
            }
        }
    }
}
