// expect: fail
// kind: over-budget
// counter: global_reads
// why: the CPU loop in every thread: right answer, 16 global reads per thread in the 8 x 8 test.
// help-has: shared | tile
// help-not: guard the access
// Puzzle 14 · Matrix multiply: out = a x b for size x size matrices stored row by row.
extern "C" __global__ void matmul(float* out, const float* a, const float* b, int size) {
    __shared__ float a_tile[TPB][TPB];
    __shared__ float b_tile[TPB][TPB];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int col = blockIdx.x * TPB + tx;
    int row = blockIdx.y * TPB + ty;
    if (row < size && col < size) {
        float sum = 0.0f;
        for (int k = 0; k < size; k++) {
            sum += a[row * size + k] * b[k * size + col];
        }
        out[row * size + col] = sum;
    }
}
