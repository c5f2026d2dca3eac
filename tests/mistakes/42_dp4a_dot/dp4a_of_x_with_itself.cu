// expect: fail
// kind: wrong-output
// help-has: __dp4a(x, y
// why: held-out (stop 44): typo: the whole words are multiplied as __dp4a(x, x, 0), a with itself
// Puzzle 42 · int8 dot product: out[0] = a[0] * b[0] + ... + a[n-1] * b[n-1], four values at a
// atomic per warp).
extern "C" __global__ void dot_i8(int* out, const signed char* a, const signed char* b, int n) {
    int w = blockIdx.x * blockDim.x + threadIdx.x;  // values 4w to 4w + 3
    int first = 4 * w;
    int partial = 0;
    if (first + 3 < n) {
        // Four int8 values in one load each: a[first] in the lowest byte.
        int x = reinterpret_cast<const int*>(a)[w];
        int y = reinterpret_cast<const int*>(b)[w];
        partial = __dp4a(x, x, 0);
    } else if (first < n) {
        // The last, partial word: the rest of it lies past the end of the arrays. Pack the
        // leftover values by hand, keeping only each one's byte (a negative signed char would
        // set every bit above it), with zeros in the missing bytes.
        int x = 0;
        int y = 0;
        for (int j = 0; first + j < n; j++) {
            x |= (a[first + j] & 0xff) << (8 * j);
            y |= (b[first + j] & 0xff) << (8 * j);
        }
        partial = __dp4a(x, y, 0);
    }
    // Every lane takes part in the warp sum, with 0 if it had nothing.
    int sum = __reduce_add_sync(0xffffffff, partial);
    if (threadIdx.x % 32 == 0) {
        atomicAdd(out, sum);
    }
}
