// expect: pass
// why: the leftover bytes cast to unsigned char, and the warp sum with shuffles.
// Puzzle 42 · int8 dot product: out[0] = a[0] * b[0] + ... + a[n-1] * b[n-1], four values at a
// time with __dp4a. Check with `gpuzzle run 42`; stuck? `gpuzzle hint 42`.
extern "C" __global__ void dot_i8(int* out, const signed char* a, const signed char* b, int n) {
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    int partial = 0;
    if (4 * w + 3 < n) {
        partial = __dp4a(reinterpret_cast<const int*>(a)[w], reinterpret_cast<const int*>(b)[w], 0);
    } else if (4 * w < n) {
        unsigned int x = 0;
        unsigned int y = 0;
        for (int j = 0; 4 * w + j < n; j++) {
            x |= (unsigned int)(unsigned char)a[4 * w + j] << (8 * j);
            y |= (unsigned int)(unsigned char)b[4 * w + j] << (8 * j);
        }
        partial = __dp4a((int)x, (int)y, 0);
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        partial += __shfl_down_sync(0xffffffff, partial, offset);
    }
    if (threadIdx.x % 32 == 0) {
        atomicAdd(out, partial);
    }
}
