// Puzzle 33 · Debug: off by one. out[r] = sum of row r of the rows x cols matrix a.
// FIX ME: this kernel is complete but has ONE bug. Run `gpuzzle run 33`, read what it reports, fix it.
extern "C" __global__ void row_sums(float* out, const float* a, int rows, int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float sum = 0.0f;
        for (int c = 0; c <= cols; c++) {
            sum += a[row * cols + c];
        }
        out[row] = sum;
    }
}
