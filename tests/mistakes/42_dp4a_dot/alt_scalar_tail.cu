// expect: pass
// why: __dp4a on every whole word, and the 1 to 3 leftover values of the partial last word multiplied one by one (a scalar tail, as in puzzle 36)
// Puzzle 42 · int8 dot product: out[0] = a[0] * b[0] + ... + a[n-1] * b[n-1], four values at a
// time with __dp4a. Check with `gpuzzle run 42`; stuck? `gpuzzle hint 42`.
extern "C" __global__ void dot_i8(int* out, const signed char* a, const signed char* b, int n) {
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    int partial = 0;
    if (4 * w + 3 < n) {
        partial = __dp4a(reinterpret_cast<const int*>(a)[w], reinterpret_cast<const int*>(b)[w], 0);
    } else {
        for (int k = 4 * w; k < n; k++) {
            partial += a[k] * b[k];
        }
    }
    int sum = __reduce_add_sync(0xffffffff, partial);
    if (threadIdx.x % 32 == 0) {
        atomicAdd(out, sum);
    }
}
