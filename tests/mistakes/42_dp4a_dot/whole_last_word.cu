// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: 4 * w + 3 < n | first + 3 < n | byte
// why: loads every word whole, the last one too, where only 1 to 3 of its bytes are in the array.
// Puzzle 42 · int8 dot product: out[0] = a[0] * b[0] + ... + a[n-1] * b[n-1], four values at a
// time with __dp4a. Check with `gpuzzle run 42`; stuck? `gpuzzle hint 42`.
extern "C" __global__ void dot_i8(int* out, const signed char* a, const signed char* b, int n) {
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    int partial = 0;
    if (4 * w < n) {
        int x = reinterpret_cast<const int*>(a)[w];  // @bug
        int y = reinterpret_cast<const int*>(b)[w];
        partial = __dp4a(x, y, 0);
    }
    int sum = __reduce_add_sync(0xffffffff, partial);
    if (threadIdx.x % 32 == 0) {
        atomicAdd(out, sum);
    }
}
