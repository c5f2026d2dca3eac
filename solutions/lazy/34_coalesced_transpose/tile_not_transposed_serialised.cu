// lazy: stages the tile in shared memory but writes it back down the columns of out, one lane at a time
extern "C" __global__ void transpose(float* out, const float* a, int rows, int cols) {
    __shared__ float tile[TILE][TILE];
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    bool inside = row < rows && col < cols;
    if (inside) {
        tile[threadIdx.y][threadIdx.x] = a[row * cols + col];
    }
    __syncthreads();
    for (int lane = 0; lane < 32; lane++) {
        if (inside && threadIdx.x % 32 == lane) {
            out[col * rows + row] = tile[threadIdx.y][threadIdx.x];
        }
        __syncwarp();
    }
}
