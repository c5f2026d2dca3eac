// expect: fail
// kind: over-budget
// counter: global_reads
// why: right answer, but reads the four values of its word one byte at a time.
// help-has: word | 32-bit | four bytes | __dp4a
// help-not: guard the access
// Puzzle 42 · int8 dot product: out[0] = a[0] * b[0] + ... + a[n-1] * b[n-1], four values at a
// time with __dp4a. Check with `gpuzzle run 42`; stuck? `gpuzzle hint 42`.
extern "C" __global__ void dot_i8(int* out, const signed char* a, const signed char* b, int n) {
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    int partial = 0;
    for (int k = 4 * w; k < 4 * w + 4 && k < n; k++) {
        partial += a[k] * b[k];
    }
    int sum = __reduce_add_sync(0xffffffff, partial);
    if (threadIdx.x % 32 == 0) {
        atomicAdd(out, sum);
    }
}
