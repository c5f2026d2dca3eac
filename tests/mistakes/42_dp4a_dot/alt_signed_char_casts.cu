// expect: pass
// why: whole words taken apart as (signed char)(x >> 8k) products, which NVRTC compiles to one dp4a: the text accepts that form
// Puzzle 42 · int8 dot product: out[0] = a[0] * b[0] + ... + a[n-1] * b[n-1], four values at a
// time with __dp4a. Check with `gpuzzle run 42`; stuck? `gpuzzle hint 42`.
extern "C" __global__ void dot_i8(int* out, const signed char* a, const signed char* b, int n) {
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    int partial = 0;
    if (4 * w + 3 < n) {
        int x = reinterpret_cast<const int*>(a)[w];
        int y = reinterpret_cast<const int*>(b)[w];
#pragma unroll
        for (int k = 0; k < 4; k++) partial += (int)(signed char)(x >> 8 * k) * (int)(signed char)(y >> 8 * k);
    } else {
        int x = 0, y = 0;
        for (int j = 0; 4 * w + j < n; j++) {
            x |= (a[4 * w + j] & 0xff) << (8 * j);
            y |= (b[4 * w + j] & 0xff) << (8 * j);
        }
        partial = __dp4a(x, y, 0);
    }
    int sum = __reduce_add_sync(0xffffffff, partial);
    if (threadIdx.x % 32 == 0) atomicAdd(out, sum);
}
