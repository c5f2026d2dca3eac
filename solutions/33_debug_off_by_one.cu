// Puzzle 33 · Debug: off by one. Reference solution: a row has cols elements, 0 to cols - 1.
extern "C" __global__ void row_sums(float* out, const float* a, int rows, int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float sum = 0.0f;
        for (int c = 0; c < cols; c++) {
            sum += a[row * cols + c];
        }
        out[row] = sum;
    }
}
