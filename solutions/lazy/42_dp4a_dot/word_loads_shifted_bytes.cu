// lazy: whole-word loads, but the four bytes are pulled out with shifts and multiplied one pair at a time, no __dp4a
extern "C" __global__ void dot_i8(int* out, const signed char* a, const signed char* b, int n) {
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    int first = 4 * w;
    int partial = 0;
    if (first + 3 < n) {
        int x = reinterpret_cast<const int*>(a)[w];
        int y = reinterpret_cast<const int*>(b)[w];
        for (int j = 0; j < 4; j++) {
            int xb = (x << (24 - 8 * j)) >> 24;  // byte j, sign-extended
            int yb = (y << (24 - 8 * j)) >> 24;
            partial += xb * yb;
        }
    } else {
        for (int k = first; k < n; k++) {
            partial += a[k] * b[k];
        }
    }
    int sum = __reduce_add_sync(0xffffffff, partial);
    if (threadIdx.x % 32 == 0) {
        atomicAdd(out, sum);
    }
}
