// expect: pass
// why: char4 loads and the four member products added by hand: NVRTC fuses them into one dp4a, which the text accepts
// Puzzle 42 · int8 dot product: out[0] = a[0] * b[0] + ... + a[n-1] * b[n-1], four values at a
// time with __dp4a. Check with `gpuzzle run 42`; stuck? `gpuzzle hint 42`.
extern "C" __global__ void dot_i8(int* out, const signed char* a, const signed char* b, int n) {
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    int partial = 0;
    if (4 * w + 3 < n) {
        char4 x = reinterpret_cast<const char4*>(a)[w];
        char4 y = reinterpret_cast<const char4*>(b)[w];
        partial = (signed char)x.x * (signed char)y.x + (signed char)x.y * (signed char)y.y
                + (signed char)x.z * (signed char)y.z + (signed char)x.w * (signed char)y.w;
    } else {
        for (int k = 4 * w; k < n; k++) partial += a[k] * b[k];
    }
    int sum = __reduce_add_sync(0xffffffff, partial);
    if (threadIdx.x % 32 == 0) atomicAdd(out, sum);
}
