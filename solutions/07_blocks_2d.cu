// Puzzle 7 · Blocks 2D: reference solution.
extern "C" __global__ void blocks_2d(float* out, const float* a, int rows, int cols) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < rows && col < cols) {
        out[row * cols + col] = a[row * cols + col] + 10.0f;
    }
}
