// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: [w] | word w | int index | 4 bytes | four bytes
// why: the int view of a is indexed with the byte index 4w: int number 4w starts at byte 16w, four
// why: words too far; the word of bytes 4w .. 4w + 3 is reinterpret_cast<const int*>(a)[w].
// Puzzle 42 · int8 dot product: out[0] = a[0] * b[0] + ... + a[n-1] * b[n-1], four values at a
extern "C" __global__ void dot_i8(int* out, const signed char* a, const signed char* b, int n) {
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    int base = 4 * w;
    int part = 0;
    if (base + 3 < n) {
        int xa = reinterpret_cast<const int*>(a)[base];  // @bug
        int xb = reinterpret_cast<const int*>(b)[base];
        part = __dp4a(xa, xb, 0);
    } else {
        for (int j = base; j < n; j++) {
            part += a[j] * b[j];
        }
    }
    int s = __reduce_add_sync(0xffffffff, part);
    if (threadIdx.x % 32 == 0) {
        atomicAdd(out, s);
    }
}
