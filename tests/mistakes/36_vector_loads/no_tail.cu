// expect: fail
// kind: wrong-output
// why: vectorizes the whole groups correctly and forgets the one to three elements after them.
// help-has: tail | remaining | leftover | last elements | % 4 | last one to three
// help-not: __syncthreads()
// Puzzle 36 · Vectorized loads: out[i] = a[i] + b[i], four elements per thread with float4.
// Check with `gpuzzle run 36`; stuck? `gpuzzle hint 36`.
extern "C" __global__ void add4(float* out, const float* a, const float* b, int size) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (4 * j + 3 < size) {
        float4 x = reinterpret_cast<const float4*>(a)[j];
        float4 y = reinterpret_cast<const float4*>(b)[j];
        reinterpret_cast<float4*>(out)[j] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
}
