// expect: fail
// kind: out-of-bounds
// line: @bug
// help-has: row < rows
// help-not: c < cols
// why: fixes the loop, and drops the row guard while at it.
// Puzzle 33 · Debug: off by one. out[r] = sum of row r of the rows x cols matrix a.
extern "C" __global__ void row_sums(float* out, const float* a, int rows, int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    float sum = 0.0f;
    for (int c = 0; c < cols; c++) {
        sum += a[row * cols + c];  // @bug
    }
    out[row] = sum;
}
