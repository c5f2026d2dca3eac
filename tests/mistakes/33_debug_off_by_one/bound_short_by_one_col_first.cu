// expect: fail
// kind: wrong-output
// why: `k < cols - 1` with the column term written first: the last element of every row is left out.
// help-has: < cols | last element
// help-not: __syncthreads()
// Puzzle 33 · Debug: off by one. out[r] = sum of row r of the rows x cols matrix a.
extern "C" __global__ void row_sums(float* out, const float* a, int rows, int cols) {
    int r = threadIdx.x + blockIdx.x * blockDim.x;
    if (r >= rows) {
        return;
    }
    float acc = 0.0f;
    for (int k = 0; k < cols - 1; ++k) {
        acc += a[k + r * cols];
    }
    out[r] = acc;
}
