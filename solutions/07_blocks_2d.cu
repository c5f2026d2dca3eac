// Puzzle 7 · Blocks 2D: reference solution.
extern "C" __global__ void blocks_2d(float* out, const float* a, int size) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < size && col < size) {
        out[row * size + col] = a[row * size + col] + 10.0f;
    }
}
