// Puzzle 42 · int8 dot product: out[0] = a[0] * b[0] + ... + a[n-1] * b[n-1], four values at a
// time with __dp4a. Check with `gpuzzle run 42`; stuck? `gpuzzle hint 42`.
extern "C" __global__ void dot_i8(int* out, const signed char* a, const signed char* b, int n) {
    // FILL ME IN (roughly 20 lines). A start, to uncomment:
    //     int w = blockIdx.x * blockDim.x + threadIdx.x;  // this thread's word: values 4w to 4w + 3
    //     const int* a4 = reinterpret_cast<const int*>(a);  // four int8 values per int
    //     int partial = 0;
}
