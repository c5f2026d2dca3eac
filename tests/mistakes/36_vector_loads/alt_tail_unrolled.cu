// expect: pass
// why: the partial group written out as up to three guarded scalar adds instead of a loop.
// Puzzle 36 · Vectorized loads: out[i] = a[i] + b[i], four elements per thread with float4.
// Check with `gpuzzle run 36`; stuck? `gpuzzle hint 36`.
extern "C" __global__ void add4(float* out, const float* a, const float* b, int size) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = 4 * j;
    const float4* a4 = reinterpret_cast<const float4*>(a);
    const float4* b4 = reinterpret_cast<const float4*>(b);
    if (i + 3 < size) {
        float4 x = a4[j];
        float4 y = b4[j];
        x.x += y.x;
        x.y += y.y;
        x.z += y.z;
        x.w += y.w;
        reinterpret_cast<float4*>(out)[j] = x;
    } else if (i < size) {
        out[i] = a[i] + b[i];
        if (i + 1 < size) out[i + 1] = a[i + 1] + b[i + 1];
        if (i + 2 < size) out[i + 2] = a[i + 2] + b[i + 2];
    }
}
