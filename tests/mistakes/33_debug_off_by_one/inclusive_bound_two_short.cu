// expect: fail
// kind: wrong-output
// why: `c <= cols - 2`, an inclusive bound one too small: the last column of every row is not summed.
// help-has: < cols | last element
// help-not: __syncthreads()
// Puzzle 33 · Debug: off by one. out[r] = sum of row r of the rows x cols matrix a.
extern "C" __global__ void row_sums(float* out, const float* a, int rows, int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float total = 0.0f;
        const int base = row * cols;
        for (int c = 0; c <= cols - 2; c++) total += a[base + c];
        out[row] = total;
    }
}
