// expect: fail
// kind: wrong-output
// why: over-corrects: `c < cols - 1` drops the last element of each row.
// help-has: < cols | last element | cols - 1
// help-not: __syncthreads()
// Puzzle 33 · Debug: off by one. out[r] = sum of row r of the rows x cols matrix a.
extern "C" __global__ void row_sums(float* out, const float* a, int rows, int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float sum = 0.0f;
        for (int c = 0; c < cols - 1; c++) {
            sum += a[row * cols + c];
        }
        out[row] = sum;
    }
}
