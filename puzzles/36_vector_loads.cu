// Puzzle 36 · Vectorized loads: out[i] = a[i] + b[i], four elements per thread with float4.
// Check with `gpuzzle run 36`; stuck? `gpuzzle hint 36`.
extern "C" __global__ void add4(float* out, const float* a, const float* b, int size) {
    // FILL ME IN (roughly 12 lines). A start, the group of four this thread owns:
    //     int j = blockIdx.x * blockDim.x + threadIdx.x;  // float4 index
    //     int i = 4 * j;                                  // its first float
}
