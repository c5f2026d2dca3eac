// Puzzle 13 · Axis sum: out[r] = sum of row r of a (BATCH rows of size elements).
// Check with `gpuzzle run 13`; stuck? `gpuzzle hint 13`.
extern "C" __global__ void axis_sum(float* out, const float* a, int size) {
    // FILL ME IN (roughly 15 lines). You will need:
    //   __shared__ float cache[TPB];
    //   int row = blockIdx.y;
    //   int local_i = threadIdx.x;
}
