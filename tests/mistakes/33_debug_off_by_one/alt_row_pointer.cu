// expect: pass
// why: a pointer to the row and an end pointer.
// Puzzle 33 · Debug: off by one. out[r] = sum of row r of the rows x cols matrix a.
extern "C" __global__ void row_sums(float* out, const float* a, int rows, int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    const float* p = a + row * cols;
    const float* end = p + cols;
    float sum = 0.0f;
    while (p != end) sum += *p++;
    out[row] = sum;
}
