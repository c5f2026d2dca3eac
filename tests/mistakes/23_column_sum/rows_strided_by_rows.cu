// expect: fail
// kind: out-of-bounds
// line: @mark
// help-has: local_i * cols
// why: held-out (stop 44): each column element is read with a row pitch of rows instead of cols (past the end of a where rows > cols)
// Puzzle 23 · Column sum: out[c] = sum of column c of a (rows x cols, rows <= TPB).
extern "C" __global__ void column_sum(float* out, const float* a, int rows, int cols) {
    __shared__ float cache[TPB];
    int col = blockIdx.x;
    int local_i = threadIdx.x;
    cache[local_i] = local_i < rows ? a[local_i * rows + col] : 0.0f;  // @mark
    __syncthreads();
    for (int stride = TPB / 2; stride > 0; stride /= 2) {
        if (local_i < stride) {
            cache[local_i] += cache[local_i + stride];
        }
        __syncthreads();
    }
    if (local_i == 0) {
        out[col] = cache[0];
    }
}
