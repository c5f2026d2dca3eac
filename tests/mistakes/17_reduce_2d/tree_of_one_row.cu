// expect: fail
// kind: wrong-output
// why: the tree starts at TPB_X / 2, as for a 1D block of 16: only the first row is summed.
// help-has: TPB_X * TPB_Y | all rows | whole block | first row | row 0
// help-not: guard the access
// Puzzle 17 · 2D reduction: out[blockIdx.y * gridDim.x + blockIdx.x] = sum of this block's tile of a.
extern "C" __global__ void reduce_2d(float* out, const float* a, int rows, int cols) {
    __shared__ float s[TPB_Y * TPB_X];
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int t = threadIdx.y * TPB_X + threadIdx.x;
    s[t] = (row < rows && col < cols) ? a[row * cols + col] : 0.0f;
    __syncthreads();
    for (int stride = TPB_X / 2; stride > 0; stride /= 2) {
        if (t < stride) {
            s[t] += s[t + stride];
        }
        __syncthreads();
    }
    if (t == 0) {
        out[blockIdx.y * gridDim.x + blockIdx.x] = s[0];
    }
}
