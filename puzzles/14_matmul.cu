// Puzzle 14 · Matrix multiply: out = a x b for size x size matrices stored row by row.
// Check with `gpuzzle run 14`; stuck? `gpuzzle hint 14`.
extern "C" __global__ void matmul(float* out, const float* a, const float* b, int size) {
    // FILL ME IN (roughly 20 lines). You will need:
    //   __shared__ float a_tile[TPB][TPB];
    //   __shared__ float b_tile[TPB][TPB];
    //   int tx = threadIdx.x;
    //   int ty = threadIdx.y;
    //   int col = blockIdx.x * TPB + tx;
    //   int row = blockIdx.y * TPB + ty;
}
