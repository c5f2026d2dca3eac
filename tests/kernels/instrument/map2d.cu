// A 2D grid of 2D blocks over a size x size matrix.
extern "C" __global__ void map2d(float* out, const float* a, int size) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < size && y < size) {
        out[y * size + x] = a[y * size + x] * 2.0f + 1.0f;
    }
}
