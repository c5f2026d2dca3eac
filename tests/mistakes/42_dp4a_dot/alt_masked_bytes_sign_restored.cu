// expect: pass
// why: unsigned words, each byte masked and its sign restored with (b ^ 0x80) - 0x80: NVRTC sees four sign-extended byte products and fuses them into one dp4a, which the text accepts
// Puzzle 42 · int8 dot product: out[0] = a[0] * b[0] + ... + a[n-1] * b[n-1], four values at a
// time with __dp4a. Check with `gpuzzle run 42`; stuck? `gpuzzle hint 42`.
extern "C" __global__ void dot_i8(int* out, const signed char* a, const signed char* b, int n) {
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    int partial = 0;
    if (4 * w + 3 < n) {
        unsigned x = reinterpret_cast<const unsigned*>(a)[w];
        unsigned y = reinterpret_cast<const unsigned*>(b)[w];
        for (int k = 0; k < 4; k++) {
            int xb = (int)(((x >> (8 * k)) & 0xffu) ^ 0x80u) - 0x80;
            int yb = (int)(((y >> (8 * k)) & 0xffu) ^ 0x80u) - 0x80;
            partial += xb * yb;
        }
    } else {
        for (int k = 4 * w; k < n; k++) partial += a[k] * b[k];
    }
    int sum = __reduce_add_sync(0xffffffff, partial);
    if (threadIdx.x % 32 == 0) atomicAdd(out, sum);
}
