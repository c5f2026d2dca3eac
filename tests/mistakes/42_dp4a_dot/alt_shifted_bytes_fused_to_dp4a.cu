// expect: pass
// why: the bytes sign-extended with shifts and multiplied pair by pair: NVRTC fuses the four products of one word into a dp4a, which the text accepts
// Puzzle 42 · int8 dot product: out[0] = a[0] * b[0] + ... + a[n-1] * b[n-1], four values at a
// time with __dp4a. Check with `gpuzzle run 42`; stuck? `gpuzzle hint 42`.
extern "C" __global__ void dot_i8(int* out, const signed char* a, const signed char* b, int n) {
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    int first = 4 * w;
    int partial = 0;
    if (first + 3 < n) {
        int x = reinterpret_cast<const int*>(a)[w];
        int y = reinterpret_cast<const int*>(b)[w];
        for (int j = 0; j < 4; j++) {
            int xb = (x << (24 - 8 * j)) >> 24;  // byte j, sign-extended
            int yb = (y << (24 - 8 * j)) >> 24;
            partial += xb * yb;
        }
    } else {
        for (int k = first; k < n; k++) {
            partial += a[k] * b[k];
        }
    }
    int sum = __reduce_add_sync(0xffffffff, partial);
    if (threadIdx.x % 32 == 0) {
        atomicAdd(out, sum);
    }
}
