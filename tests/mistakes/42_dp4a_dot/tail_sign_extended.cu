// expect: fail
// kind: wrong-output
// why: packs the leftover bytes of the last word without masking them: a negative byte sets
// why: every bit above it, corrupting the other leftover values.
// help-has: mask | & 0xff | sign
// help-not: guard the access
// Puzzle 42 · int8 dot product: out[0] = a[0] * b[0] + ... + a[n-1] * b[n-1], four values at a
// time with __dp4a. Check with `gpuzzle run 42`; stuck? `gpuzzle hint 42`.
extern "C" __global__ void dot_i8(int* out, const signed char* a, const signed char* b, int n) {
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    int first = 4 * w;
    int partial = 0;
    if (first + 3 < n) {
        int x = reinterpret_cast<const int*>(a)[w];
        int y = reinterpret_cast<const int*>(b)[w];
        partial = __dp4a(x, y, 0);
    } else if (first < n) {
        int x = 0;
        int y = 0;
        for (int j = 0; first + j < n; j++) {
            x |= a[first + j] << (8 * j);
            y |= b[first + j] << (8 * j);
        }
        partial = __dp4a(x, y, 0);
    }
    int sum = __reduce_add_sync(0xffffffff, partial);
    if (threadIdx.x % 32 == 0) {
        atomicAdd(out, sum);
    }
}
