// expect: fail
// kind: wrong-output
// why: loads the words as unsigned int, so __dp4a multiplies the bytes as 0 to 255.
// help-has: signed | (int
// help-not: guard the access
// Puzzle 42 · int8 dot product: out[0] = a[0] * b[0] + ... + a[n-1] * b[n-1], four values at a
// time with __dp4a. Check with `gpuzzle run 42`; stuck? `gpuzzle hint 42`.
extern "C" __global__ void dot_i8(int* out, const signed char* a, const signed char* b, int n) {
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    int first = 4 * w;
    unsigned int partial = 0;
    if (first + 3 < n) {
        unsigned int x = reinterpret_cast<const unsigned int*>(a)[w];
        unsigned int y = reinterpret_cast<const unsigned int*>(b)[w];
        partial = __dp4a(x, y, 0u);
    } else if (first < n) {
        unsigned int x = 0;
        unsigned int y = 0;
        for (int j = 0; first + j < n; j++) {
            x |= (unsigned int)(a[first + j] & 0xff) << (8 * j);
            y |= (unsigned int)(b[first + j] & 0xff) << (8 * j);
        }
        partial = __dp4a(x, y, 0u);
    }
    int sum = __reduce_add_sync(0xffffffff, (int)partial);
    if (threadIdx.x % 32 == 0) {
        atomicAdd(out, sum);
    }
}
