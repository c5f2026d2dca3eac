// expect: fail
// kind: warp-sync
// line: @bug
// help-has: every lane | all 32 lanes | outside
// help-not: __syncthreads()
// why: calls the warp sum only in threads that have values: the lanes past the end never come.
// Puzzle 42 · int8 dot product: out[0] = a[0] * b[0] + ... + a[n-1] * b[n-1], four values at a
// time with __dp4a. Check with `gpuzzle run 42`; stuck? `gpuzzle hint 42`.
extern "C" __global__ void dot_i8(int* out, const signed char* a, const signed char* b, int n) {
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    int first = 4 * w;
    if (first < n) {
        int x = 0;
        int y = 0;
        if (first + 3 < n) {
            x = reinterpret_cast<const int*>(a)[w];
            y = reinterpret_cast<const int*>(b)[w];
        } else {
            for (int j = 0; first + j < n; j++) {
                x |= (a[first + j] & 0xff) << (8 * j);
                y |= (b[first + j] & 0xff) << (8 * j);
            }
        }
        int sum = __reduce_add_sync(0xffffffff, __dp4a(x, y, 0));  // @bug
        if (threadIdx.x % 32 == 0) {
            atomicAdd(out, sum);
        }
    }
}
